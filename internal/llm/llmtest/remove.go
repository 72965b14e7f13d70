package llmtest

import "slices"

// RemoveModel uninstalls a model, as `ollama rm` does: it is no longer
// listed nor served. A name without a tag means ":latest".
func (s *Server) RemoveModel(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.DeleteFunc(s.models, func(m *model) bool {
		return m.name == name || m.name+":latest" == name || m.name == name+":latest"
	})
}
