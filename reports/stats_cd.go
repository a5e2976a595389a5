package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// cdDiagram is a critical-difference diagram (Demšar 2006, Fig. 1): the
// series on an axis of average rank, best (1) on the left, each labelled
// on the side nearer its rank; thick bars join the groups of series
// whose average ranks differ by less than the critical difference CD,
// drawn above the axis from rank 1.
type cdDiagram struct {
	title string
	names []string
	ranks []float64
	cd    float64
}

// cliques returns the maximal groups, as ranges [i, j] of series sorted
// by rank, whose first and last ranks differ by less than cd; groups of
// one are left out.
func cliques(sorted []float64, cd float64) [][2]int {
	var out [][2]int
	for i := range sorted {
		j := i
		for j+1 < len(sorted) && sorted[j+1]-sorted[i] < cd {
			j++
		}
		if j > i && (len(out) == 0 || j > out[len(out)-1][1]) {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// render draws the diagram as a PNG 7 inches wide.
func (g *cdDiagram) render() ([]byte, error) {
	k := len(g.names)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return g.ranks[order[a]] < g.ranks[order[b]] })
	sorted := make([]float64, k)
	for i, j := range order {
		sorted[i] = g.ranks[j]
	}
	groups := cliques(sorted, g.cd)

	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), Handler: plot.DefaultTextHandler}
	title := sty
	title.Font = font.From(plot.DefaultFont, 12)
	title.XAlign = draw.XCenter
	labels := make([]string, k)
	labelW := vg.Length(0)
	for i, j := range order {
		labels[i] = fmt.Sprintf("%s (%.2f)", g.names[j], g.ranks[j])
		labelW = max(labelW, sty.Width(labels[i]))
	}
	const (
		rowH   = vg.Length(16)
		barGap = vg.Length(6)
	)
	left := (k + 1) / 2 // the best half is labelled on the left
	rows := max(left, k-left)
	width := 7 * vg.Inch
	height := 100 + vg.Length(len(groups))*barGap + vg.Length(rows)*rowH
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96))
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())

	x0, x1 := labelW+28, width-labelW-28
	if x1-x0 < width/4 { // long labels: keep some axis
		x0, x1 = width*3/8, width*5/8
	}
	xOf := func(r float64) vg.Length {
		if k == 1 {
			return (x0 + x1) / 2
		}
		return x0 + vg.Length((r-1)/float64(k-1))*(x1-x0)
	}
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	thick := draw.LineStyle{Color: color.Black, Width: vg.Points(3)}

	top := height - 10
	dc.FillText(title, vg.Point{X: width / 2, Y: top - title.Height(g.title)}, g.title)
	// The CD bar, from rank 1.
	yCD := top - 32
	dc.StrokeLine2(line, xOf(1), yCD, xOf(1+g.cd), yCD)
	dc.StrokeLine2(line, xOf(1), yCD-3, xOf(1), yCD+3)
	dc.StrokeLine2(line, xOf(1+g.cd), yCD-3, xOf(1+g.cd), yCD+3)
	cdText := sty
	cdText.XAlign = draw.XLeft
	dc.FillText(cdText, vg.Point{X: xOf(1+g.cd) + 6, Y: yCD - 4}, "CD = "+strconv.FormatFloat(g.cd, 'f', 2, 64))
	// The axis with a tick at each whole rank.
	yAxis := yCD - 34
	dc.StrokeLine2(line, xOf(1), yAxis, xOf(float64(k)), yAxis)
	tick := sty
	tick.XAlign = draw.XCenter
	for r := 1; r <= k; r++ {
		dc.StrokeLine2(line, xOf(float64(r)), yAxis, xOf(float64(r)), yAxis+5)
		dc.FillText(tick, vg.Point{X: xOf(float64(r)), Y: yAxis + 8}, strconv.Itoa(r))
	}
	// The groups, below the axis.
	for i, gr := range groups {
		y := yAxis - 8 - vg.Length(i)*barGap
		dc.StrokeLine2(thick, xOf(sorted[gr[0]])-3, y, xOf(sorted[gr[1]])+3, y)
	}
	// The series: a line down from the axis, then out to the label.
	yRow0 := yAxis - 16 - vg.Length(len(groups))*barGap
	lbl := sty
	lbl.YAlign = draw.YCenter
	for i := 0; i < k; i++ {
		x := xOf(sorted[i])
		var row int
		var end vg.Length
		if i < left {
			row, end = i, x0-14
			lbl.XAlign = draw.XRight
		} else {
			row, end = k-1-i, x1+14 // the worst at the top right
			lbl.XAlign = draw.XLeft
		}
		y := yRow0 - vg.Length(row)*rowH
		dc.StrokeLines(line, []vg.Point{{X: x, Y: yAxis}, {X: x, Y: y}, {X: end, Y: y}})
		pad := vg.Length(-4)
		if i >= left {
			pad = 4
		}
		dc.FillText(lbl, vg.Point{X: end + pad, Y: y}, labels[i])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plot %q: %w", g.title, err)
	}
	return buf.Bytes(), nil
}
