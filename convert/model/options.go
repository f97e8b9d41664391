package model

import "time"

// Options tune writers. The zero value gives each format's defaults.
type Options struct {
	// ATIFVersion is the ATIF version to write: "1.5" (default), "1.6" or
	// "1.7"; "ATIF-v1.6" is accepted too.
	ATIFVersion string
	// Producer names the program in outputs that record one (REPLAY
	// `producer`, Claude `version`). Default "rlog-ls".
	Producer string
	// Now gives the time for fields such as REPLAY `created_at`; nil means
	// time.Now. Tests set it for reproducible output.
	Now func() time.Time
	// RepoSHA is used by writers whose format requires a repository sha
	// when the source has none (rlog `repo_sha`).
	RepoSHA string
	// OnRead, when set, is called as a file conversion reads its input,
	// with the bytes of the main input read so far (for progress).
	OnRead func(n int64)
	// Totals, when set, are the session's token totals as a writer reports
	// them at its end (Totals), known before its events because the input
	// was read once before (convert.ConvertFile): writers that write their
	// header first put them there (rlog's tokens_total_*, ATIF-JSONL's
	// final_metrics).
	Totals *Usage
	// TotalsStated says Totals are what the source itself states
	// (Header.Totals at its end), not its messages counted: a writer that
	// marks totals it made up does not mark them.
	TotalsStated bool
	// Complete, when set, is put between an rlog source's reader and the
	// writer of another format: it gives the events what lies beside the
	// log holds of them (companion.Completer: the whole records of its
	// companion, where the log cut them).
	Complete func(Sink, *Report) Sink
	// Observe, when set, is given every event the reader reads and the
	// session's end, before the writer is (the sessions index reads a
	// session's title and the files its calls changed there, in the pass
	// that writes its rlog view). An error it returns stops the reading.
	Observe Sink
}

// ProducerName returns Producer or the default.
func (o Options) ProducerName() string {
	if o.Producer != "" {
		return o.Producer
	}
	return "rlog-ls"
}

// Time returns Now() or the current time, in UTC.
func (o Options) Time() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}
