package shapes

import "math"

// Circle is a round shape.
type Circle struct {
	Radius float64
}

// Area returns the circle's area.
func (c Circle) Area() float64 { return math.Pi * c.Radius * c.Radius }

// Name returns "circle".
func (c Circle) Name() string { return "circle" }
