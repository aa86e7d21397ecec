/*
 * stats_chart.c - draws one chart as inline SVG (see stats_chart.h for the
 * structure and the axis rules).  Colours and fonts come from the page's CSS
 * classes, so the SVG holds geometry only.  Plot area: 64 px left for the y
 * labels, 34 px on top for the legend, 40 px below for the x labels.
 */
#include "stats_chart.h"

#include <math.h>
#include <string.h>

#include "stats_file.h"

#define SS_L 64.0
#define SS_R 34.0
#define SS_T 34.0
#define SS_B 40.0
#define SS_PW (SS_CHART_W - SS_L - SS_R)
#define SS_PH (SS_CHART_H - SS_T - SS_B)
#define SS_TICKS 6

void ss_html_text(FILE *out, const char *s)
{
    for (; *s; s++) switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
}

/* Of the steps {1, 2, 5} x 10^e, the one giving closest to SS_TICKS ticks
 * over [0, span]; never below min_step. */
static double ss_step(double span, double min_step)
{
    double best = 0, best_err = 1e300;
    int e0 = (int)floor(log10(span / SS_TICKS));
    for (int e = e0 - 1; e <= e0 + 1; e++)
        for (int k = 0; k < 3; k++) {
            double step = (k == 0 ? 1 : k == 1 ? 2 : 5) * pow(10, e);
            if (step < min_step) continue;
            double err = fabs(floor(span / step) + 1 - SS_TICKS);
            if (err < best_err) best = step, best_err = err;
        }
    return best > 0 ? best : (min_step > 0 ? min_step : span);
}

static void ss_num(char *buf, size_t len, double v, double step)
{
    int decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    snprintf(buf, len, "%.*f", decimals, v);
}

/* A MiB amount with the digits that matter: 256, 1.50, 0.0127. */
static void ss_mib(char *buf, size_t len, double v)
{
    if (v >= 100 || v == 0)
        snprintf(buf, len, "%.0f MiB", v);
    else if (v >= 1)
        snprintf(buf, len, "%.2f MiB", v);
    else
        snprintf(buf, len, "%.3g MiB", v);
}

static double ss_series_max(const ss_chart *c)
{
    double m = 0;
    for (int k = 0; k < c->nseries; k++)
        for (size_t i = 0; i < c->n; i++)
            if (c->series[k].pts[i].y > m) m = c->series[k].pts[i].y;
    return m;
}

int ss_chart_draws_capacity(const ss_chart *c)
{
    double m = ss_series_max(c);
    return c->capacity >= 0 && m > 0 && c->capacity <= 2 * m;
}

/* Pixel positions: x over [0.5, scopes + 0.5], y over [0, top]. */
typedef struct ss_scale {
    double x0, x1, top;
} ss_scale;

static double ss_px(const ss_scale *s, double x)
{
    return SS_L + (x - s->x0) / (s->x1 - s->x0) * SS_PW;
}

static double ss_py(const ss_scale *s, double y)
{
    return SS_T + SS_PH - y / s->top * SS_PH;
}

static double ss_point_x(const ss_point *p)
{
    return (p->first + p->last) / 2.0;
}

static void ss_xtick(FILE *out, const ss_scale *sc, long x)
{
    double px = ss_px(sc, (double)x);
    fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px, SS_T + SS_PH, px,
            SS_T + SS_PH + 5);
    fprintf(out, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">%ld</text>", px, SS_T + SS_PH + 18, x);
}

static void ss_axes(FILE *out, const ss_chart *c, const ss_scale *sc)
{
    int integral = strcmp(c->unit, "MiB") != 0;
    double ystep = ss_step(sc->top, integral ? 1 : 0);
    char label[48];
    fprintf(out, "<g class=\"grid\">");
    for (int i = 0; i * ystep <= sc->top * (1 + 1e-9); i++) {
        double y = i * ystep, py = ss_py(sc, y);
        ss_num(label, sizeof label, y, ystep);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", SS_L, py,
                SS_L + SS_PW, py);
        fprintf(out, "<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">%s</text>", SS_L - 8, py + 4, label);
    }
    fprintf(out, "</g>");
    double span = sc->x1 - sc->x0 - 1; /* scopes - 1 */
    long xstep = (long)ss_step(span > 1 ? span : 1, 1);
    fprintf(out, "<g class=\"xaxis\"><line class=\"base\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                 "y2=\"%.1f\"/>",
            SS_L, SS_T + SS_PH, SS_L + SS_PW, SS_T + SS_PH);
    if (xstep >= 5) ss_xtick(out, sc, 1);
    for (long x = xstep; x <= c->scopes; x += xstep) ss_xtick(out, sc, x);
    fprintf(out, "<text class=\"xt\" x=\"%.1f\" y=\"%d\">", SS_L + SS_PW / 2, SS_CHART_H - 4);
    ss_html_text(out, c->x_label);
    fprintf(out, "</text><text class=\"yt\" transform=\"translate(14 %.1f) rotate(-90)\">%s</text>"
                 "</g>",
            SS_T + SS_PH / 2, c->unit);
}

static void ss_legend(FILE *out, const ss_chart *c, int cap)
{
    double x = SS_L;
    fprintf(out, "<g class=\"legend\">");
    for (int k = 0; k < c->nseries; k++) {
        const ss_series *s = &c->series[k];
        if (s->bars)
            fprintf(out, "<rect class=\"%s\" x=\"%.1f\" y=\"12\" width=\"12\" height=\"10\"/>",
                    s->cls, x);
        else
            fprintf(out, "<line class=\"line %s\" x1=\"%.1f\" y1=\"17\" x2=\"%.1f\" y2=\"17\"/>"
                         "<circle class=\"%s\" cx=\"%.1f\" cy=\"17\" r=\"3\"/>",
                    s->cls, x, x + 16, s->cls, x + 8);
        fprintf(out, "<text x=\"%.1f\" y=\"21\">%s</text>", x + 22, s->name);
        x += 22 + 7.2 * (double)strlen(s->name) + 18;
    }
    if (cap)
        fprintf(out, "<line class=\"cap\" x1=\"%.1f\" y1=\"17\" x2=\"%.1f\" y2=\"17\"/>"
                     "<text x=\"%.1f\" y=\"21\">capacity</text>",
                x, x + 22, x + 28);
    fprintf(out, "</g>");
}

/* "High water, scope #3: 15 slots, site k.py:10" */
static void ss_hover(FILE *out, const ss_chart *c, const ss_series *s, const ss_point *p)
{
    fprintf(out, "<title>%s, ", s->name);
    if (p->first == p->last)
        fprintf(out, "scope #%ld: ", p->first);
    else
        fprintf(out, "scopes #%ld-#%ld (largest): ", p->first, p->last);
    char mib[48];
    ss_mib(mib, sizeof mib, p->y);
    if (!strcmp(c->unit, "MiB"))
        fprintf(out, "%s (%lld bytes)", mib, (long long)p->raw);
    else
        fprintf(out, "%lld %s", (long long)p->raw, c->unit);
    fprintf(out, ", site ");
    ss_html_text(out, p->site);
    fprintf(out, "</title>");
}

/* Series drawn first get bigger points, so equal values stay visible as
 * concentric rings of their colours. */
static void ss_series_draw(FILE *out, const ss_chart *c, const ss_scale *sc, int k)
{
    const ss_series *s = &c->series[k];
    double slot = SS_PW / (sc->x1 - sc->x0);
    double r = (c->n > 200 ? 1.6 : c->n > 60 ? 2.2 : 3.0) + 1.6 * (c->nseries - 1 - k);
    fprintf(out, "<g class=\"series %s\" data-name=\"%s\">", s->cls, s->name);
    if (!s->bars && c->n > 1) {
        fprintf(out, "<polyline class=\"line %s\" points=\"", s->cls);
        for (size_t i = 0; i < c->n; i++)
            fprintf(out, "%s%.1f,%.1f", i ? " " : "", ss_px(sc, ss_point_x(&s->pts[i])),
                    ss_py(sc, s->pts[i].y));
        fprintf(out, "\"/>");
    }
    for (size_t i = 0; i < c->n; i++) {
        const ss_point *p = &s->pts[i];
        double px = ss_px(sc, ss_point_x(p)), py = ss_py(sc, p->y);
        if (s->bars) {
            double w = slot * (double)(p->last - p->first + 1) * 0.7;
            if (w < 1) w = 1;
            fprintf(out, "<rect class=\"pt %s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                         "height=\"%.1f\">",
                    s->cls, px - w / 2, py, w, SS_T + SS_PH - py);
            ss_hover(out, c, s, p);
            fprintf(out, "</rect>");
        } else {
            fprintf(out, "<circle class=\"pt %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\">", s->cls, px,
                    py, r);
            ss_hover(out, c, s, p);
            fprintf(out, "</circle>");
        }
    }
    fprintf(out, "</g>");
}

static void ss_peak_mark(FILE *out, const ss_chart *c, const ss_scale *sc)
{
    const ss_series *s = &c->series[c->peak_series];
    size_t best = 0;
    for (size_t i = 1; i < c->n; i++)
        if (s->pts[i].y > s->pts[best].y) best = i;
    const ss_point *p = &s->pts[best];
    double px = ss_px(sc, ss_point_x(p)), py = ss_py(sc, p->y);
    char value[64];
    if (!strcmp(c->unit, "MiB"))
        ss_mib(value, sizeof value, p->y);
    else
        snprintf(value, sizeof value, "%lld", (long long)p->raw);
    /* label left of the mark when it would run off the right edge */
    int left = px > SS_L + SS_PW - 300;
    double ly = py < SS_T + 14 ? py + 20 : py - 10;
    fprintf(out, "<g class=\"peakmark\"><circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"7\"/>"
                 "<text class=\"peaklabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %s at #%ld"
                 " (",
            px, py, left ? px - 10 : px + 10, ly, left ? "end" : "start", value, p->first);
    ss_html_text(out, p->site);
    fprintf(out, ")</text></g>");
}

int ss_chart_write(FILE *out, const ss_chart *c)
{
    int cap = ss_chart_draws_capacity(c);
    double top = ss_series_max(c);
    if (cap && c->capacity > top) top = c->capacity;
    ss_scale sc = {0.5, (double)c->scopes + 0.5, top > 0 ? 1.1 * top : 1};
    fprintf(out, "<svg class=\"chart\" data-resource=\"%s\" data-ring=\"", c->resource);
    if (c->ring < 0)
        fprintf(out, "all");
    else
        fprintf(out, "%d", c->ring);
    fprintf(out, "\" data-kind=\"%s\" data-scopes=\"%ld\" data-series=\"%d\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
            c->kind, c->scopes, c->nseries, SS_CHART_W, SS_CHART_H, SS_CHART_W, SS_CHART_H);
    ss_axes(out, c, &sc);
    if (cap) {
        double py = ss_py(&sc, c->capacity);
        char label[48];
        ss_num(label, sizeof label, c->capacity, strcmp(c->unit, "MiB") ? 1 : 0.01);
        fprintf(out, "<line class=\"cap\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text class=\"caplabel\" x=\"%.1f\" y=\"%.1f\">capacity %s</text>",
                SS_L, py, SS_L + SS_PW, py, SS_L + 6, py - 5, label);
    }
    for (int k = 0; k < c->nseries; k++) ss_series_draw(out, c, &sc, k);
    if (c->n) ss_peak_mark(out, c, &sc);
    ss_legend(out, c, cap);
    fprintf(out, "</svg>\n");
    return ferror(out) ? SS_EINPUT : SS_OK;
}
