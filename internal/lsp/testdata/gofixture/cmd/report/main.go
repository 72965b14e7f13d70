// Command report prints the total area of a few shapes.
package main

import (
	"fmt"

	"example.com/shapes"
)

func main() {
	all := []shapes.Shape{shapes.Square{Side: 2}, shapes.Circle{Radius: 1}}
	fmt.Println("π≈3.14 😀", shapes.TotalArea(all))
	for _, s := range all {
		fmt.Println(shapes.Describe(s))
	}
}
