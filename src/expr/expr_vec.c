/* Two rows at a time (SSE2) for the element-wise arithmetic, comparisons and numpy's 8-accumulator
 * block sum: each lane does the IEEE operations one row at a time would, in the same order,
 * so the results are bit for bit the scalar ones (t-expr compares them). Without SSE2
 * every row is done alone. */
#include "expr_int.h"

#include <math.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static double arith1(int op, double x, double y)
{
        switch (op) {
        case EOP_ADD:
                return x + y;
        case EOP_SUB:
                return x - y;
        case EOP_MUL:
                return x * y;
        case EOP_DIV:
                return x / y;
        /* IEEE comparisons: only != is true with a NaN operand */
        case EOP_EQ:
                return x == y ? 1.0 : 0.0;
        case EOP_NE:
                return x != y ? 1.0 : 0.0;
        case EOP_LT:
                return x < y ? 1.0 : 0.0;
        case EOP_LE:
                return x <= y ? 1.0 : 0.0;
        case EOP_GT:
                return x > y ? 1.0 : 0.0;
        default:
                return x >= y ? 1.0 : 0.0;
        }
}

#if defined(__SSE2__)
static __m128d arith2(int op, __m128d x, __m128d y)
{
        const __m128d one = _mm_set1_pd(1.0);
        switch (op) {
        case EOP_ADD:
                return _mm_add_pd(x, y);
        case EOP_SUB:
                return _mm_sub_pd(x, y);
        case EOP_MUL:
                return _mm_mul_pd(x, y);
        case EOP_DIV:
                return _mm_div_pd(x, y);
        /* a comparison's mask of all ones or zeros, as 1.0 or 0.0 */
        case EOP_EQ:
                return _mm_and_pd(_mm_cmpeq_pd(x, y), one);
        case EOP_NE:
                return _mm_and_pd(_mm_cmpneq_pd(x, y), one);
        case EOP_LT:
                return _mm_and_pd(_mm_cmplt_pd(x, y), one);
        case EOP_LE:
                return _mm_and_pd(_mm_cmple_pd(x, y), one);
        case EOP_GT:
                return _mm_and_pd(_mm_cmpgt_pd(x, y), one);
        default:
                return _mm_and_pd(_mm_cmpge_pd(x, y), one);
        }
}

/* one loop per operator and stride case, the operator known inside it */
#define ARITH_LOOPS(OP)                                                                            \
        if (sa && sb)                                                                              \
                for (; i + 2 <= n; i += 2)                                                         \
                        _mm_storeu_pd(out + i, arith2(OP, _mm_loadu_pd(pa + i), _mm_loadu_pd(pb + i))); \
        else if (sa)                                                                               \
                for (__m128d y = _mm_set1_pd(*pb); i + 2 <= n; i += 2)                             \
                        _mm_storeu_pd(out + i, arith2(OP, _mm_loadu_pd(pa + i), y));               \
        else if (sb)                                                                               \
                for (__m128d x = _mm_set1_pd(*pa); i + 2 <= n; i += 2)                             \
                        _mm_storeu_pd(out + i, arith2(OP, x, _mm_loadu_pd(pb + i)));
#endif

void expr_arith(int op, const double *pa, size_t sa, const double *pb, size_t sb, double *out,
                size_t n)
{
        size_t i = 0;
#if defined(__SSE2__)
        /* out may be pa or pb: a pair of rows is read before it is written */
        switch (op) {
        case EOP_ADD:
                ARITH_LOOPS(EOP_ADD) break;
        case EOP_SUB:
                ARITH_LOOPS(EOP_SUB) break;
        case EOP_MUL:
                ARITH_LOOPS(EOP_MUL) break;
        case EOP_DIV:
                ARITH_LOOPS(EOP_DIV) break;
        case EOP_EQ:
                ARITH_LOOPS(EOP_EQ) break;
        case EOP_NE:
                ARITH_LOOPS(EOP_NE) break;
        case EOP_LT:
                ARITH_LOOPS(EOP_LT) break;
        case EOP_LE:
                ARITH_LOOPS(EOP_LE) break;
        case EOP_GT:
                ARITH_LOOPS(EOP_GT) break;
        default:
                ARITH_LOOPS(EOP_GE) break;
        }
#endif
        for (; i < n; i++)
                out[i] = arith1(op, pa[i * sa], pb[i * sb]);
}

/* NaN as 0, as pandas fills it */
static double nz(double x)
{
        return x != x ? 0.0 : x;
}

double expr_pw_block(const double *v, size_t n)
{
        double r[8], res = 0.0;
        size_t i = 8, j;
        if (n < 8) {
                for (i = 0; i < n; i++)
                        res += nz(v[i]);
                return res;
        }
#if defined(__SSE2__)
        __m128d acc[4];
        for (j = 0; j < 4; j++) {
                __m128d x = _mm_loadu_pd(v + 2 * j);
                acc[j] = _mm_and_pd(x, _mm_cmpord_pd(x, x));
        }
        for (; i < n - (n % 8); i += 8)
                for (j = 0; j < 4; j++) {
                        __m128d x = _mm_loadu_pd(v + i + 2 * j);
                        acc[j] = _mm_add_pd(acc[j], _mm_and_pd(x, _mm_cmpord_pd(x, x)));
                }
        for (j = 0; j < 4; j++)
                _mm_storeu_pd(r + 2 * j, acc[j]);
#else
        for (j = 0; j < 8; j++)
                r[j] = nz(v[j]);
        for (; i < n - (n % 8); i += 8)
                for (j = 0; j < 8; j++)
                        r[j] += nz(v[i + j]);
#endif
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
                res += nz(v[i]);
        return res;
}

/* one lane at a time from row `from` on, continuing mn, mx, m */
static size_t minmax1(const double *v, size_t from, size_t n, double *mn, double *mx)
{
        size_t m = 0;
        for (size_t i = from; i < n; i++) {
                double x = v[i];
                m += x == x;
                *mn = x < *mn ? x : *mn;
                *mx = x > *mx ? x : *mx;
        }
        return m;
}

size_t expr_minmax(const double *v, size_t n, double *mn, double *mx)
{
        *mn = INFINITY;
        *mx = -INFINITY;
#if defined(__SSE2__)
        /* even rows in one lane, odd rows in the other (minpd keeps its second operand
         * when x is not smaller, as the running comparison does) */
        __m128d lo = _mm_set1_pd(INFINITY), hi = _mm_set1_pd(-INFINITY);
        __m128i cnt = _mm_setzero_si128();
        size_t i = 0;
        for (; i + 2 <= n; i += 2) {
                __m128d x = _mm_loadu_pd(v + i);
                cnt = _mm_sub_epi64(cnt, _mm_castpd_si128(_mm_cmpord_pd(x, x)));
                lo = _mm_min_pd(x, lo);
                hi = _mm_max_pd(x, hi);
        }
        double l[2], h[2];
        long long c[2];
        _mm_storeu_pd(l, lo);
        _mm_storeu_pd(h, hi);
        _mm_storeu_si128((__m128i *)c, cnt);
        /* equal values of both lanes that differ in sign (0.0, -0.0): which came first is
         * not known here, so the rows go one at a time */
        if ((l[0] == l[1] && signbit(l[0]) != signbit(l[1])) ||
            (h[0] == h[1] && signbit(h[0]) != signbit(h[1])))
                return minmax1(v, 0, n, mn, mx);
        *mn = l[1] < l[0] ? l[1] : l[0];
        *mx = h[1] > h[0] ? h[1] : h[0];
        return (size_t)(c[0] + c[1]) + minmax1(v, i, n, mn, mx);
#else
        return minmax1(v, 0, n, mn, mx);
#endif
}
