package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"time"
)

// palette gives each series its colour, in order of first appearance; it repeats past
// its end, with the legend still telling the series apart.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// series is one case's points, in the order of the run (rising connection counts).
type series struct {
	name   string
	points []Result
}

func seriesOf(results []Result) []series {
	var out []series
	index := map[string]int{}
	for _, r := range results {
		if r.NA != "" || r.Requests == 0 {
			continue
		}
		i, ok := index[r.Case]
		if !ok {
			i = len(out)
			index[r.Case] = i
			out = append(out, series{name: r.Case})
		}
		out[i].points = append(out[i].points, r)
	}
	return out
}

// WriteSVG draws throughput (req/s, log scale) against p99 latency (log scale), one
// polyline per case through its connection counts. Log scales because the cases span
// from a few hundred jobs/s to tens of thousands of echoes per second.
func WriteSVG(w io.Writer, results []Result, title string) {
	const (
		width, height        = 900, 560
		left, right, top, bt = 80, 300, 40, 60
	)
	plotW, plotH := float64(width-left-right), float64(height-top-bt)
	ss := seriesOf(results)

	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, p := range s.points {
			x, y := p.ReqPerSec(), float64(max(p.P99, time.Microsecond))/float64(time.Millisecond)
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}
	if len(ss) == 0 {
		xlo, xhi, ylo, yhi = 1, 10, 0.1, 1
	}
	// Whole decades around the data, so that every tick is a round number.
	xlo, xhi = math.Pow(10, math.Floor(math.Log10(xlo))), math.Pow(10, math.Ceil(math.Log10(xhi)))
	ylo, yhi = math.Pow(10, math.Floor(math.Log10(ylo))), math.Pow(10, math.Ceil(math.Log10(yhi)))
	if xhi <= xlo {
		xhi = xlo * 10
	}
	if yhi <= ylo {
		yhi = ylo * 10
	}
	px := func(v float64) float64 {
		return float64(left) + plotW*(math.Log10(v)-math.Log10(xlo))/(math.Log10(xhi)-math.Log10(xlo))
	}
	py := func(v float64) float64 {
		return float64(top) + plotH*(1-(math.Log10(v)-math.Log10(ylo))/(math.Log10(yhi)-math.Log10(ylo)))
	}

	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(w, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", width, height)
	fmt.Fprintf(w, `<text x="%d" y="24" font-size="15">%s</text>`+"\n", left, html.EscapeString(title))
	for v := xlo; v <= xhi*1.0001; v *= 10 {
		x := px(v)
		fmt.Fprintf(w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x, top, x, height-bt)
		fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, height-bt+18, tickRate(v))
	}
	for v := ylo; v <= yhi*1.0001; v *= 10 {
		y := py(v)
		fmt.Fprintf(w, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, width-right, y)
		fmt.Fprintf(w, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y+4, tickMs(v))
	}
	fmt.Fprintf(w, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#333"/>`+"\n", left, top, plotW, plotH)
	fmt.Fprintf(w, `<text x="%.1f" y="%d" text-anchor="middle">throughput, requests (or jobs) per second, log scale</text>`+"\n", float64(left)+plotW/2, height-20)
	fmt.Fprintf(w, `<text transform="translate(20 %.1f) rotate(-90)" text-anchor="middle">p99 latency, log scale</text>`+"\n", float64(top)+plotH/2)

	for i, s := range ss {
		colour := palette[i%len(palette)]
		fmt.Fprintf(w, `<g class="series" stroke="%s" fill="%s"><title>%s</title>`+"\n", colour, colour, html.EscapeString(s.name))
		fmt.Fprint(w, `<polyline fill="none" stroke-width="2" points="`)
		for j, p := range s.points {
			if j > 0 {
				fmt.Fprint(w, " ")
			}
			fmt.Fprintf(w, "%.1f,%.1f", px(p.ReqPerSec()), py(p99ms(p)))
		}
		fmt.Fprintln(w, `"/>`)
		for _, p := range s.points {
			x, y := px(p.ReqPerSec()), py(p99ms(p))
			fmt.Fprintf(w, `<circle cx="%.1f" cy="%.1f" r="3.5"/><text x="%.1f" y="%.1f" stroke="none" font-size="10">%d</text>`+"\n", x, y, x+5, y-5, p.Conns)
		}
		ly := top + 10 + 20*i
		fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke-width="3"/><text x="%d" y="%d" stroke="none" fill="#000">%s</text>`+"\n",
			width-right+15, ly, width-right+35, ly, width-right+40, ly+4, html.EscapeString(s.name))
		fmt.Fprintln(w, `</g>`)
	}
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="10" fill="#555">point labels: connections</text>`+"\n", width-right+15, top+10+20*len(ss)+10)
	fmt.Fprintln(w, `</svg>`)
}

func p99ms(r Result) float64 {
	return float64(max(r.P99, time.Microsecond)) / float64(time.Millisecond)
}

// tickRate and tickMs label the decade ticks without the table's fixed decimals.
func tickRate(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%gk", v/1000)
	}
	return fmt.Sprintf("%g", v)
}

func tickMs(ms float64) string {
	switch {
	case ms >= 1000:
		return fmt.Sprintf("%g s", ms/1000)
	case ms >= 1:
		return fmt.Sprintf("%g ms", ms)
	default:
		return fmt.Sprintf("%g us", math.Round(ms*1000))
	}
}
