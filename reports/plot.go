package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/repro-ml/repro/metric"
	"github.com/repro-ml/repro/param"
)

// Plot size: 7 × 4.5 inches at gonum/plot's 96 dpi PNG default, 672 × 432 pixels.
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// curve is one line of a figure: points with optional ± error bars.
type curve struct {
	label     string
	x, y, err []float64 // err may be nil; NaN errors draw no bar
	dashed    bool
	points    bool // scatter only
}

// maxMarked is the most points a curve is drawn with markers;
// maxInsideLegend the most legend entries drawn inside the plot.
const (
	maxMarked       = 40
	maxInsideLegend = 5
)

// paletteSize is the number of distinct colours plotutil.Color cycles through.
var paletteSize = len(plotutil.DefaultColors)

// figure is a plot to render.
type figure struct {
	title, xlabel, ylabel string
	logx                  bool
	curves                []curve
	// ymin and ymax, if set, bound the y axis: the range of the metric
	// plotted (an AUC axis ends at 1, an accuracy axis at 100).
	ymin, ymax *float64
}

// metricFigure returns a figure of the metric or extra name, its y axis
// bounded by the metric's range.
func metricFigure(title, xlabel, name string, logx bool) *figure {
	f := &figure{title: title, xlabel: xlabel, ylabel: name, logx: logx}
	if mt, err := metric.Lookup(name); err == nil {
		f.ymin, f.ymax = mt.Min, mt.Max
	}
	return f
}

// errXYs implements plotter.XYer and plotter.YErrorer.
type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

// render draws f as a PNG. Points that a log axis cannot show (x ≤ 0) and
// non-finite points are dropped.
func (f *figure) render() ([]byte, error) {
	p := plot.New()
	p.Title.Text = f.title
	p.Title.Padding = vg.Points(8) // keeps the title clear of the top edge
	p.X.Label.Text = f.xlabel
	p.Y.Label.Text = f.ylabel
	p.Legend.Top = true
	p.Legend.Left = true
	p.Y.Tick.Marker = niceTicks{}
	p.X.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	any := false
	// The data's x extent, whose ends a log axis labels.
	xlo, xhi := math.Inf(1), math.Inf(-1)
	entries := 0
	var labels []string
	for i, c := range f.curves {
		var xys plotter.XYs
		var errs plotter.YErrors
		for j := range c.x {
			x, y := c.x[j], c.y[j]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) || (f.logx && x <= 0) {
				continue
			}
			e := 0.0
			if c.err != nil && !math.IsNaN(c.err[j]) && !math.IsInf(c.err[j], 0) {
				e = c.err[j]
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			errs = append(errs, struct{ Low, High float64 }{e, e})
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
		}
		if len(xys) == 0 {
			continue
		}
		any = true
		col := plotutil.Color(i)
		shape := plotutil.Shape(i)
		if c.points {
			s, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("plot %q: %w", f.title, err)
			}
			s.GlyphStyle.Color, s.GlyphStyle.Shape = col, shape
			p.Add(s)
			p.Legend.Add(c.label, s)
			entries++
			labels = append(labels, c.label)
			continue
		}
		l, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot %q: %w", f.title, err)
		}
		l.Color, pts.Color, pts.Shape = col, col, shape
		l.Width = vg.Points(1.5)
		// Past the palette's colours, a dash pattern tells series apart.
		if c.dashed || i >= paletteSize {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		// A dense curve (a fitted function on a fine grid) is a line; a
		// marker at every point would bury it.
		if len(xys) > maxMarked {
			pts = nil
		}
		if pts != nil {
			p.Add(l, pts)
		} else {
			p.Add(l)
		}
		if c.err != nil {
			eb, err := plotter.NewYErrorBars(errXYs{xys, errs})
			if err != nil {
				return nil, fmt.Errorf("plot %q: %w", f.title, err)
			}
			eb.Color = col
			eb.CapWidth = vg.Points(5)
			p.Add(eb)
		}
		if pts != nil {
			p.Legend.Add(c.label, l, pts)
		} else {
			p.Legend.Add(c.label, l)
		}
		entries++
		labels = append(labels, c.label)
	}
	if f.logx {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{lo: xlo, hi: xhi}
	}
	// A long legend is drawn beside the plot (below); so is one that
	// would need room above the data past the end of the metric's range.
	beside := entries > maxInsideLegend
	if !any {
		p.Title.Text += " (no data)"
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 1, 10, 0, 1
	} else {
		// Margins keep end points and error bars off the frame, and leave
		// room above the data for the legend (top left).
		if f.logx && p.X.Min > 0 {
			r := math.Pow(p.X.Max/p.X.Min, 0.04)
			if r == 1 {
				r = 1.1
			}
			p.X.Min, p.X.Max = p.X.Min/r, p.X.Max*r
		} else {
			pad := 0.04 * (p.X.Max - p.X.Min)
			if pad == 0 {
				pad = 0.5
			}
			p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
		}
		lineH := float64(p.Legend.TextStyle.Font.Size) * 1.25
		p.Y.Min, p.Y.Max, beside = f.yAxis(p.Y.Min, p.Y.Max, entries, lineH, beside)
	}
	p.Legend.TextStyle.Color = color.Black
	p.Legend.ThumbnailWidth = vg.Points(24)
	// A long legend is drawn in a column right of the plot, which keeps
	// its size: the image grows by the column's width.
	var legendW vg.Length
	var side plot.Legend
	if beside && entries > 0 {
		const pad = vg.Length(8)
		for _, lbl := range labels {
			legendW = max(legendW, p.Legend.TextStyle.Width(lbl))
		}
		legendW += p.Legend.ThumbnailWidth + p.Legend.Padding + 2*pad
		side = p.Legend
		side.Left, side.Top, side.XOffs = true, true, pad
		side.YOffs = -p.Title.TextStyle.Height(p.Title.Text) - p.Title.Padding
		p.Legend = plot.NewLegend()
	}
	c, err := draw.NewFormattedCanvas(plotWidth+legendW, plotHeight, "png")
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", f.title, err)
	}
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	if legendW > 0 {
		side.Draw(draw.Crop(dc, plotWidth, 0, 0, 0))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %q: %w", f.title, err)
	}
	return buf.Bytes(), nil
}

// yAxis returns the y axis of data from dmin to dmax (error bars
// included): a margin of 5% on each side, cut at the metric's range (an
// AUC axis does not run past 1; error bars are clipped there), and room
// above the data for a legend of entries lines of height lineH drawn
// inside, top left (one line per entry from the top of the plotting
// area, the frame less title and axes, ~90pt). Where that room would
// take the axis past the metric's range, the legend goes beside the plot:
// beside is returned true.
func (f *figure) yAxis(dmin, dmax float64, entries int, lineH float64, beside bool) (lo, hi float64, _ bool) {
	span := dmax - dmin
	if span == 0 {
		span = math.Max(math.Abs(dmax), 1)
	}
	lo, top := dmin-0.05*span, dmax+0.05*span
	if f.ymin != nil && lo < *f.ymin && *f.ymin < top {
		lo = *f.ymin
	}
	if f.ymax != nil && top > *f.ymax && *f.ymax > lo {
		top = *f.ymax
	}
	if beside || entries == 0 {
		return lo, top, beside
	}
	frac := (float64(entries)*lineH + 6) / (float64(plotHeight) - 90)
	hi = lo + (top-lo)/(1-frac)
	if f.ymax != nil && hi > *f.ymax {
		return lo, top, true
	}
	return lo, hi, false
}

// curveFigure is the learning curve of one dataset and metric (or extra
// of report.y): a line per series, mean ± sd over trials at each x.
func (m *model) curveFigure(d *dataSet, name string) *figure {
	f := metricFigure(d.id+": "+name, "training size", name, m.spec.Report.LogX)
	for _, s := range d.series {
		c := curve{label: s.display()}
		for _, x := range d.xs {
			vals, _ := s.cells[x].values(name)
			st := summarize(vals)
			if st.N == 0 {
				continue
			}
			c.x = append(c.x, x)
			c.y = append(c.y, st.Mean)
			c.err = append(c.err, st.SD)
		}
		if len(c.x) > 0 {
			f.curves = append(f.curves, c)
		}
	}
	return f
}

// sweepFigure plots metricName against the method parameter report.x:
// each method whose series vary that parameter (fixed-rule grid points, or
// the variants of a rule with select.over) gives one line per setting of
// its other varying parameters (and per size, when there are several);
// other series are dashed horizontal lines at their mean.
func (m *model) sweepFigure(d *dataSet, metricName string) *figure {
	xname := m.spec.Report.X
	neglog := m.spec.Report.XTransform == "neglog"
	f := metricFigure(d.id+": "+metricName, xname, metricName, m.spec.Report.LogX)
	if neglog {
		f.xlabel = "−ln " + xname
	}
	type key struct {
		label, rest string
		size        float64
	}
	lines := map[key]*curve{}
	var order []key
	var flat []*series
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range d.series {
		xv, ok := s.variant[xname]
		if !ok {
			flat = append(flat, s)
			continue
		}
		x, ok := toFloat(xv)
		if !ok {
			flat = append(flat, s)
			continue
		}
		if neglog {
			x = -math.Log(x)
		}
		rest := param.Values{}
		for k, v := range s.variant {
			if k != xname {
				rest[k] = v
			}
		}
		for _, size := range d.xs {
			vals, _ := s.cells[size].values(metricName)
			st := summarize(vals)
			if st.N == 0 {
				continue
			}
			k := key{s.label, rest.Label(), size}
			c := lines[k]
			if c == nil {
				label := s.label
				if k.rest != "" {
					label += " (" + k.rest + ")"
				}
				if len(d.xs) > 1 {
					label += " n=" + fmtX(size)
				}
				if s.oracle {
					label += " [oracle]"
				}
				c = &curve{label: label}
				lines[k] = c
				order = append(order, k)
			}
			c.x = append(c.x, x)
			c.y = append(c.y, st.Mean)
			c.err = append(c.err, st.SD)
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	for _, k := range order {
		c := lines[k]
		idx := make([]int, len(c.x))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return c.x[idx[a]] < c.x[idx[b]] })
		s := curve{label: c.label}
		for _, i := range idx {
			s.x, s.y, s.err = append(s.x, c.x[i]), append(s.y, c.y[i]), append(s.err, c.err[i])
		}
		f.curves = append(f.curves, s)
	}
	if xmin > xmax {
		return f
	}
	for _, s := range flat {
		for _, size := range d.xs {
			vals, _ := s.cells[size].values(metricName)
			st := summarize(vals)
			if st.N == 0 {
				continue
			}
			label := s.display()
			if len(d.xs) > 1 {
				label += " n=" + fmtX(size)
			}
			f.curves = append(f.curves, curve{label: label, x: []float64{xmin, xmax}, y: []float64{st.Mean, st.Mean}, dashed: true})
		}
	}
	return f
}

// niceTicks labels about six round values (steps of 1, 2 or 5 times a
// power of ten) with unlabelled minor ticks between them; gonum's default
// labels only three, which is too coarse to read a curve off.
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	minor := step / 2
	for v := math.Ceil(lo/minor) * minor; v <= hi+minor*1e-9; v += minor {
		v = math.Round(v/minor) * minor
		if v == 0 {
			v = 0 // not −0, which would be labelled "-0"
		}
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-9 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logTicks labels 1, 2 and 5 times each power of ten on a log axis (so a
// curve over sizes 20 … 800 shows 20, 50, 100, 200, 500), with unlabelled
// ticks at the other integer multiples, and labels the data's end points
// lo and hi (sizes 30 … 400 show 30 and 400), leaving out a round label
// that would crowd one of them.
type logTicks struct{ lo, hi float64 }

// crowd is the share of a log axis within which a round label gives way
// to an end point's.
const crowd = 0.06

func (lt logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var ticks []plot.Tick
	decades := math.Log10(hi / lo)
	for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := base * m
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || (decades < 4 && (m == 2 || m == 5)) {
				t.Label = strconv.FormatFloat(v, 'g', 4, 64)
			}
			ticks = append(ticks, t)
		}
	}
	var ends []float64
	for _, v := range []float64{lt.lo, lt.hi} {
		if v >= lo && v <= hi && (len(ends) == 0 || ends[0] != v) {
			ends = append(ends, v)
		}
	}
	for i := range ticks {
		for _, v := range ends {
			if ticks[i].Value != v && math.Abs(math.Log10(ticks[i].Value/v)) < crowd*decades {
				ticks[i].Label = ""
			}
		}
	}
	for _, v := range ends {
		label := strconv.FormatFloat(v, 'g', 4, 64)
		i := sort.Search(len(ticks), func(i int) bool { return ticks[i].Value >= v })
		if i < len(ticks) && ticks[i].Value == v {
			ticks[i].Label = label
			continue
		}
		ticks = slices.Insert(ticks, i, plot.Tick{Value: v, Label: label})
	}
	return ticks
}
