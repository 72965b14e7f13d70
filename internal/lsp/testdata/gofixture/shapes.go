// Package shapes is a small fixture for olly's language-server tests.
package shapes

// Shape is anything with an area and a name.
type Shape interface {
	Area() float64
	Name() string
}

// Square is a shape with four equal sides.
type Square struct {
	Side float64
}

// Area returns the square's area.
func (s Square) Area() float64 { return s.Side * s.Side }

// Name returns "square".
func (s Square) Name() string { return "square" }
