// Package transformer changes recorded messages before they are replayed:
// fresh request ids per replay (IDs), and later rules of condition → action.
// Edits work on bytes in place; what a transform does not change goes out
// byte for byte as recorded.
package transformer
