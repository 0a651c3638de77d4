/* Rounding a value to nd decimals, half to even: the one rounding of prism's metric values
 * (a metric's round:, analyze --decimal). */
#ifndef PRISM_ROUND_H
#define PRISM_ROUND_H

/* x * 10^nd rounded to the nearest whole number, ties to even, / 10^nd; not finite: x. */
double round_half_even(double x, int nd);

#endif
