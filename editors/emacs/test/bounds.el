;;; bounds.el --- how the Emacs test scripts wait for the server  -*- lexical-binding: t -*-
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

(defun rlog-test-diagnostics ()
  "The server's diagnostics in flymake, waited for up to `rlog-test-wait' seconds.
Idle timers, which start flymake in an editor, do not run in batch mode, so
flymake is started here, but only once eglot holds diagnostics: eglot 1.9
hands the diagnostics that arrive while a flymake run is on to that run
without keeping them, and a flymake start after that reports what eglot
kept, nothing, in their place.  Started every 50 ms while waiting, as the
scripts did, flymake lost the diagnostics whenever they arrived after the
first start."
  (let ((deadline (+ (float-time) rlog-test-wait))
        diags)
    (while (and (not (setq diags (or (flymake-diagnostics)
                                      (and eglot--diagnostics
                                           (progn (flymake-start) (flymake-diagnostics))))))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    diags))

(provide 'bounds)
;;; bounds.el ends here
