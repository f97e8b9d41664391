;;; bounds.el --- how long the Emacs test scripts wait for the server  -*- lexical-binding: t -*-
;; Loaded by each script that talks to the server. A loaded machine (CI runs
;; the scripts beside fuzzing and real agent CLIs) can take longer than
;; jsonrpc's 10 s a request, eglot's 30 s to connect and 1.5 s to shut down,
;; and than the 15 s the scripts waited for diagnostics. Each wait ends as
;; soon as what it waits for is there; the Go test bounds the whole run
;; against a hang.
(require 'eglot)

(defconst rlog-test-wait 120
  "Seconds a test script waits for the server: a request, diagnostics, edits.")

(setq jsonrpc-default-request-timeout rlog-test-wait
      eglot-connect-timeout rlog-test-wait)

(provide 'bounds)
;;; bounds.el ends here
