package server

// WebSocketConns is the number of open WebSocket connections
// (hermes_websocket_connections).
func (s *Server) WebSocketConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}
