package ui

import (
	"bytes"
	"embed"
)

// assets is the page: index.html, its style and its script, put together
// into one document (assemble), so that it can be served, or written
// whole into a file.
//
//go:embed assets
var assets embed.FS

// assemble is the page as one HTML document.
func assemble() []byte {
	page, _ := assets.ReadFile("assets/index.html") // embedded: never fails
	css, _ := assets.ReadFile("assets/app.css")
	js, _ := assets.ReadFile("assets/app.js")
	page = bytes.Replace(page, []byte("/*CSS*/"), css, 1)
	return bytes.Replace(page, []byte("/*JS*/"), js, 1)
}
