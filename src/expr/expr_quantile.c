/* Order statistics of a column: median and quantiles as pandas computes them (numpy's
 * percentile, "linear"), by selection instead of sorting. */
#include "expr.h"

#include <math.h>
#include <stdlib.h>

#include "../util/util.h"

/* The non-NaN values (a copy, in any order); *m gets their count. NULL when none. */
static double *valid_copy(const double *v, size_t n, size_t *m)
{
        double *s = xmalloc((n ? n : 1) * sizeof *s);
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (!isnan(v[i]))
                        s[k++] = v[i];
        *m = k;
        if (!k) {
                free(s);
                return NULL;
        }
        return s;
}

/* Rearrange s so that s[k] is the k-th smallest, smaller ones before it, larger after
 * (Hoare's selection, median of three pivots): O(m) instead of sorting. */
static double select_kth(double *s, size_t m, size_t k)
{
        size_t lo = 0, hi = m - 1;
        while (hi > lo) {
                size_t mid = lo + (hi - lo) / 2;
                double a = s[lo], b = s[mid], c = s[hi], p;
                p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
                size_t i = lo, j = hi;
                while (i <= j) {
                        while (s[i] < p)
                                i++;
                        while (s[j] > p)
                                j--;
                        if (i <= j) {
                                double t = s[i];
                                s[i] = s[j];
                                s[j] = t;
                                i++;
                                if (j == 0)
                                        break;
                                j--;
                        }
                }
                if (k <= j)
                        hi = j;
                else if (k >= i)
                        lo = i;
                else
                        break;
        }
        return s[k];
}

/* the smallest of s[from..m) */
static double min_from(const double *s, size_t from, size_t m)
{
        double r = s[from];
        for (size_t i = from + 1; i < m; i++)
                if (s[i] < r)
                        r = s[i];
        return r;
}

double agg_median(const double *v, size_t n)
{
        size_t m;
        double *s = valid_copy(v, n, &m), r;

        if (!s)
                return NAN;
        if (m % 2) {
                r = select_kth(s, m, m / 2);
        } else {
                double a = select_kth(s, m, m / 2 - 1);
                r = (a + min_from(s, m / 2, m)) / 2.0;
        }
        free(s);
        return r;
}

/* Series.quantile(q): numpy.percentile(values, q * 100) with the "linear" method, whose
 * interpolation (numpy's _lerp) is a + (b - a) * t, or b - (b - a) * (1 - t) for t >= .5. */
double agg_quantile(const double *v, size_t n, double q)
{
        size_t m, lo, hi;
        double *s, idx, t, a, b, d, r;

        q = q * 100.0 / 100.0; /* pandas multiplies by 100, numpy divides again */
        if (!(q >= 0.0 && q <= 1.0))
                return NAN; /* pandas raises; NaN q lands here too */
        s = valid_copy(v, n, &m);
        if (!s)
                return NAN;
        idx = (double)(m - 1) * q;
        if (idx >= (double)(m - 1)) {
                lo = hi = m - 1;
        } else {
                lo = (size_t)floor(idx);
                hi = lo + 1;
        }
        t = idx - (double)lo;
        a = select_kth(s, m, lo);
        b = hi == lo ? a : min_from(s, lo + 1, m);
        d = b - a;
        r = t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
        free(s);
        return r;
}

/* idx = (m - 1) q between the order statistics lo and lo + 1 (agg_quantile's rule) */
static void q_index(size_t m, double q, size_t *lo, size_t *hi, double *t)
{
        double idx = (double)(m - 1) * q;
        if (idx >= (double)(m - 1)) {
                *lo = *hi = m - 1;
        } else {
                *lo = (size_t)floor(idx);
                *hi = *lo + 1;
        }
        *t = idx - (double)*lo;
}

static double q_lerp(double a, double b, double t)
{
        double d = b - a;
        return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* the value of rank r in s, partitioned around rank km (value vk; vk1 the one of rank
 * km + 1): ranks below km are selected among s[0 .. km), above among s[km + 1 .. m) */
static double rank_of(double *s, size_t m, size_t km, double vk, double vk1, size_t r)
{
        if (r == km)
                return vk;
        if (r == km + 1)
                return vk1;
        if (r < km)
                return select_kth(s, km, r);
        return select_kth(s + km + 1, m - km - 1, r - km - 1);
}

/* agg_mq of the m values of s, which are v's not NaN in v's order (rearranged here) */
static void mq_valid(double *s, size_t m, double out[3])
{
        for (size_t i = 0; i < m; i++)
                if (s[i] == 0 && signbit(s[i])) {
                        /* -0.0 beside 0.0: which one a selection returns depends on its
                         * order, so each statistic is found as on its own */
                        out[0] = agg_median(s, m);
                        out[1] = agg_quantile(s, m, 0.25);
                        out[2] = agg_quantile(s, m, 0.75);
                        return;
                }
        /* the median's selection splits s around rank km; the quartiles are then selected
         * in one side each (ranks are values: equal values are the same double here) */
        size_t km = m % 2 ? m / 2 : m / 2 - 1;
        double vk = select_kth(s, m, km);
        double vk1 = km + 1 < m ? min_from(s, km + 1, m) : vk;
        out[0] = m % 2 ? vk : (vk + vk1) / 2.0;
        static const double qs[2] = {0.25, 0.75};
        for (int j = 1; j >= 0; j--) { /* q3 first: it reads only ranks >= km */
                size_t lo, hi;
                double t;
                q_index(m, qs[j], &lo, &hi, &t);
                double a, b;
                if (lo < km && hi < km) {
                        a = select_kth(s, km, lo);
                        b = min_from(s, lo + 1, km);
                } else if (lo > km + 1) {
                        a = select_kth(s + km + 1, m - km - 1, lo - km - 1);
                        b = hi == lo ? a : min_from(s, lo + 1, m);
                } else {
                        a = rank_of(s, m, km, vk, vk1, lo);
                        b = hi == lo ? a : rank_of(s, m, km, vk, vk1, hi);
                }
                out[1 + j] = q_lerp(a, b, t);
        }
}

void agg_mq(const double *v, size_t n, double out[3])
{
        size_t m;
        double *s = valid_copy(v, n, &m);
        out[0] = out[1] = out[2] = NAN;
        if (!s)
                return;
        mq_valid(s, m, out);
        free(s);
}

void agg_mq_own(double *v, size_t n, double out[3])
{
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
                if (!isnan(v[i]))
                        v[m++] = v[i];
        out[0] = out[1] = out[2] = NAN;
        if (m)
                mq_valid(v, m, out);
}
