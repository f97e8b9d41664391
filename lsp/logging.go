package lsp

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Flags are the server's command-line options. Bind them to the serve
// command's flag set, then build the loggers with Loggers.
type Flags struct {
	LogLevel string // debug, info, warn, error
	LogFile  string // "" logs to stderr
	Trace    bool   // log every JSON-RPC message
}

// Bind registers --log-level, --log-file, --trace, and --stdio (which
// clients pass; stdio is the only transport, so it changes nothing).
func (f *Flags) Bind(fs *flag.FlagSet) {
	fs.StringVar(&f.LogLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.StringVar(&f.LogFile, "log-file", "", "write the log to this `file` instead of stderr")
	fs.BoolVar(&f.Trace, "trace", false, "log every JSON-RPC message (at any log level)")
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default; accepted for clients that pass it)")
}

// Loggers builds the server log and, with --trace, the traffic log (nil
// without it). Both write to the log file or stderr; never to stdout, which
// carries the protocol. close flushes and closes the file.
func (f *Flags) Loggers() (log, trace *zap.Logger, close func() error, err error) {
	level, err := zapcore.ParseLevel(f.LogLevel)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	var sink zapcore.WriteSyncer = zapcore.Lock(os.Stderr)
	closeSink := func() error { return nil }
	if f.LogFile != "" {
		file, err := os.OpenFile(f.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		sink, closeSink = zapcore.Lock(file), file.Close
	}
	log = newLogger(sink, level)
	if f.Trace {
		// The trace has its own level so that --trace works whatever --log-level says.
		trace = newLogger(sink, zapcore.DebugLevel).Named("trace")
	}
	close = func() error {
		return errors.Join(ignoreSyncError(log.Sync()), closeSink())
	}
	return log, trace, close, nil
}

func newLogger(sink zapcore.WriteSyncer, level zapcore.Level) *zap.Logger {
	cfg := zap.NewProductionEncoderConfig()
	cfg.EncodeTime = zapcore.ISO8601TimeEncoder
	return zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(cfg), sink, level))
}

// ignoreSyncError drops the error fsync gives on a terminal or pipe.
func ignoreSyncError(err error) error {
	var pathErr *os.PathError
	if errors.As(err, &pathErr) {
		return nil
	}
	return err
}
