package shapes

import "fmt"

// TotalArea sums the areas of shapes.
func TotalArea(shapes []Shape) float64 {
	var sum float64
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}

// Describe says what a shape is and how big it is.
func Describe(s Shape) string {
	return fmt.Sprintf("%s of area %.2f", s.Name(), s.Area())
}
