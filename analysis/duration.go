package analysis

import (
	"fmt"
	"strings"
	"time"
)

// FormatDuration writes a duration for people, the one way `rlog-ls
// stats`, the code lenses, the inlay hints and the session view all write
// them: 750ms, 1.5s, 30s, 2m 55s, 1h 5m. Below a second it counts
// milliseconds, below ten seconds tenths, then it rounds to the second and,
// from an hour on, to the minute.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", d.Seconds()), "0"), ".") + "s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm %ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh %dm", int(d.Hours()), int(d.Minutes())%60)
}
