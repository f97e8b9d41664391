package lsp

import (
	"time"

	"go.uber.org/zap"
)

// watchProcess ends the connection when the client's process (initialize's
// processId) is gone: an editor that crashes never sends exit, and its
// server must not live on as an orphan. Gone means: no such process, a
// zombie (dead, not yet reaped by its parent), or a process that is not
// the client any more: its start time differs from the one seen at
// initialize, because the pid was reused after the client died.
func (s *server[T]) watchProcess(pid int) {
	start := s.opts.processStart(pid)
	ticker := time.NewTicker(s.opts.ProcessPollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-s.bg.Done():
			return
		case <-ticker.C:
			if !s.opts.processAlive(pid) || start != "" && s.opts.processStart(pid) != start {
				s.log.Warn("the client's process is gone; stopping", zap.Int("processId", pid))
				s.stop()
				return
			}
		}
	}
}
