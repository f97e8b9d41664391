package lsp

import (
	"time"

	"go.uber.org/zap"
)

// watchProcess ends the connection when the client's process (initialize's
// processId) is gone: an editor that crashes never sends exit, and its
// server must not live on as an orphan.
func (s *server[T]) watchProcess(pid int) {
	ticker := time.NewTicker(s.opts.ProcessPollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.bg.Done():
			return
		case <-ticker.C:
			if !s.opts.processAlive(pid) {
				s.log.Warn("the client's process is gone; stopping", zap.Int("processId", pid))
				s.stop()
				return
			}
		}
	}
}
