package event

// Attachment is context the person attached to a prompt (@path or
// @path:L10-L50).
type Attachment struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	// Content is the text as it was sent to the model ("" for an image).
	Content string `json:"content"`
	// Image is set when the attachment is an image (for vision models).
	Image *ImageRef `json:"image,omitempty"`
}

// ImageRef is an image attached to a prompt. The log keeps its type, hash
// and size; the bytes are stored once by hash beside the log (the store's
// images table) and loaded when the message goes to a model.
type ImageRef struct {
	MimeType string `json:"mimeType"`
	SHA256   string `json:"sha256"`
	Size     int    `json:"size"`
	// Data are the bytes while the prompt is live; never in the log.
	Data []byte `json:"-"`
}
