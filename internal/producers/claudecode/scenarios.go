package claudecode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"

	a "github.com/rlog-ls/rlog-ls/internal/producers/anthropic"
)

// Scenarios are the scripted sessions the fixtures are recorded from, the
// twelve of docs/producers.md. Each rule matches one turn of the session by
// what the CLI sends: the prompt of the turn, the result of a tool call
// (by the call's id), a sub-agent's task, a compaction's instructions.
var Scenarios = []*Scenario{
	{
		Name: "tools",
		About: "Read a file, a Bash command that succeeds and one that fails " +
			"(exit code 2), then a closing answer.",
		Files: map[string][]byte{"notes.txt": []byte("alpha\nbeta\ngamma\n")},
		Steps: []Step{{Prompt: "Check the notes in this folder.", Args: []string{"--allowedTools", "Bash", "Read"}}},
		Ends:  []string{"done"},
		Rules: []a.Rule{
			{Name: "read", When: a.LastUserSays("Check the notes"), Times: 1,
				Reply: call("I'll read the notes first.", "toolu_tools_read", "Read",
					`{"file_path":"/tmp/rlog-producers/claude/tools/work/notes.txt"}`)},
			{Name: "bash-ok", When: a.ToolResult("toolu_tools_read"), Times: 1,
				Reply: call("Three lines. Counting them with wc to be sure.", "toolu_tools_bash_ok", "Bash",
					`{"command":"wc -l notes.txt","description":"Count the lines of the notes"}`)},
			{Name: "bash-fails", When: a.ToolResult("toolu_tools_bash_ok"), Times: 1,
				Reply: call("Now the archive folder.", "toolu_tools_bash_fails", "Bash",
					`{"command":"ls archive","description":"List the archive folder"}`)},
			{Name: "done", When: a.ToolResult("toolu_tools_bash_fails"), Times: 1,
				Reply: say("The notes have three lines (alpha, beta, gamma); there is no archive folder.")},
		},
	},
	{
		Name:  "write-edit",
		About: "Write a new file, then Edit it.",
		Steps: []Step{{Prompt: "Create greet.sh that prints hello, then make it say goodbye.", Args: []string{"--allowedTools", "Write", "Edit"}}},
		Ends:  []string{"done"},
		Rules: []a.Rule{
			{Name: "write", When: a.LastUserSays("Create greet.sh"), Times: 1,
				Reply: call("Writing the script.", "toolu_we_write", "Write",
					`{"file_path":"/tmp/rlog-producers/claude/write-edit/work/greet.sh","content":"#!/bin/sh\necho hello\n"}`)},
			{Name: "edit", When: a.ToolResult("toolu_we_write"), Times: 1,
				Reply: call("Now the change.", "toolu_we_edit", "Edit",
					`{"file_path":"/tmp/rlog-producers/claude/write-edit/work/greet.sh","old_string":"echo hello","new_string":"echo goodbye"}`)},
			{Name: "done", When: a.ToolResult("toolu_we_edit"), Times: 1, Reply: say("greet.sh now prints goodbye.")},
		},
	},
	{
		Name: "subagent",
		About: "The main agent starts a sub-agent (Agent tool, general-purpose) that runs a Bash " +
			"command; it runs in the background and reports back through a queued task notification.",
		Files:  map[string][]byte{"VERSION": []byte("1.4.2\n")},
		Steps:  []Step{{Prompt: "Find out which version this folder is at, using a sub-agent.", Args: []string{"--allowedTools", "Bash", "Agent"}}},
		Expect: []string{"*/subagents/agent-*.jsonl", "*/subagents/agent-*.meta.json"},
		Ends:   []string{"report"},
		Rules: []a.Rule{
			// The sub-agent's conversation starts with its task.
			{Name: "agent-bash", When: a.All(a.FirstUserSays("Read the VERSION file"), a.LastUserSays("Read the VERSION file")), Times: 1,
				Reply: call("Reading it.", "toolu_sub_cat", "Bash", `{"command":"cat VERSION","description":"Show the version file"}`)},
			{Name: "agent-done", When: a.ToolResult("toolu_sub_cat"), Times: 1,
				Reply: say("The folder is at version 1.4.2.")},
			{Name: "spawn", When: a.LastUserSays("Find out which version"), Times: 1,
				Reply: call("I'll ask a sub-agent.", "toolu_sub_agent", "Agent",
					`{"description":"Read the version","prompt":"Read the VERSION file in the working directory and report the version it holds.","subagent_type":"general-purpose"}`)},
			{Name: "wait", When: a.ToolResult("toolu_sub_agent"), Times: 1,
				Reply: say("The sub-agent is working on it.")},
			{Name: "report", When: a.LastUserHas("<task-notification>"), Times: 1,
				Reply: say("This folder is at version 1.4.2.")},
		},
	},
	{
		Name: "compaction",
		About: "A prompt, then /compact (manual compaction) in a resumed run, then a prompt whose " +
			"answer reports a nearly full context (990,000 tokens read from cache) and calls a tool, " +
			"so that the CLI compacts on its own (automatic compaction) before going on.",
		Steps: []Step{
			{Prompt: "Remember the word pelican."},
			{Prompt: "/compact", Resume: true},
			{Prompt: "Which word did I ask you to remember? Then count the files here.", Resume: true, Args: []string{"--allowedTools", "Bash"}},
		},
		Ends: []string{"continue"},
		Rules: []a.Rule{
			// Compaction first: its request also ends with the turn it
			// interrupts (a tool result the rules below would answer).
			{Name: "summary", When: compactionRequest, Times: 2, Reply: a.Reply{
				Content: []a.Block{a.Text("<analysis>\nThe user asked me to remember a word.\n</analysis>\n\n<summary>\n" +
					"1. Primary Request and Intent: remember the word pelican; later, count the files.\n" +
					"2. Current Work: none pending.\n</summary>")},
				Usage: a.Usage{Input: 7, CacheCreation: 0, CacheRead: 4100, Output: 37}}},
			{Name: "remember", When: a.LastUserSays("Remember the word"), Times: 1, Reply: say("I will remember pelican.")},
			{Name: "recall", When: a.LastUserSays("Which word"), Times: 1, Reply: a.Reply{
				Content: []a.Block{a.Text("Pelican. Now counting the files."),
					a.ToolUse("toolu_compaction_ls", "Bash", `{"command":"ls | wc -l","description":"Count the files"}`)},
				Usage: a.Usage{Input: 4, CacheCreation: 2000, CacheRead: 990000, Output: 30}}},
			{Name: "continue", When: a.All(continuedRequest, a.Not(compactionRequest)), Times: 1,
				Reply: say("There are no files here.")},
		},
	},
	{
		Name: "compaction-twice",
		About: "A prompt, /compact (manual compaction) in a resumed run, then a resumed run that the " +
			"CLI compacts on its own twice: each of two answers reports a nearly full context " +
			"(990,000 tokens read from cache) and calls a tool, so that two automatic compactions " +
			"fall in one run.",
		Steps: []Step{
			{Prompt: "Remember the word heron."},
			{Prompt: "/compact", Resume: true},
			{Prompt: "Count the files here, then the folders.", Resume: true, Args: []string{"--allowedTools", "Bash"}},
		},
		Ends: []string{"final"},
		Rules: []a.Rule{
			// As in compaction: the summary requests first; each of the
			// three compactions' calls has usage of its own.
			{Name: "summary-manual", When: compactionRequest, Times: 1, Reply: twiceSummary(a.Usage{Input: 9, CacheRead: 4200, Output: 41})},
			{Name: "summary-auto-1", When: compactionRequest, Times: 1, Reply: twiceSummary(a.Usage{Input: 11, CacheRead: 4300, Output: 43})},
			{Name: "summary-auto-2", When: compactionRequest, Times: 1, Reply: twiceSummary(a.Usage{Input: 13, CacheRead: 4400, Output: 47})},
			{Name: "remember", When: a.LastUserSays("Remember the word"), Times: 1, Reply: say("I will remember heron.")},
			{Name: "files", When: a.LastUserSays("Count the files"), Times: 1, Reply: a.Reply{
				Content: []a.Block{a.Text("Counting the files first."),
					a.ToolUse("toolu_twice_files", "Bash", `{"command":"ls -p | grep -vc /","description":"Count the files"}`)},
				Usage: a.Usage{Input: 4, CacheCreation: 2000, CacheRead: 990000, Output: 30}}},
			{Name: "folders", When: a.All(continuedRequest, a.Not(compactionRequest)), Times: 1, Reply: a.Reply{
				Content: []a.Block{a.Text("Now the folders."),
					a.ToolUse("toolu_twice_folders", "Bash", `{"command":"ls -p | grep -c /","description":"Count the folders"}`)},
				Usage: a.Usage{Input: 5, CacheCreation: 2100, CacheRead: 990500, Output: 28}}},
			{Name: "final", When: a.All(continuedRequest, a.Not(compactionRequest)), Times: 1,
				Reply: say("There are no files and no folders here.")},
		},
	},
	{
		Name: "resume-fork",
		About: "A prompt, a second prompt resuming the session (--resume), then a third resuming " +
			"it as a new session (--resume --fork-session).",
		Steps: []Step{
			{Prompt: "Pick a colour."},
			{Prompt: "Why that one?", Resume: true},
			{Prompt: "Pick another one instead.", Resume: true, Fork: true},
		},
		Ends: []string{"why", "another"},
		Rules: []a.Rule{
			{Name: "pick", When: a.LastUserSays("Pick a colour"), Times: 1, Reply: say("Teal.")},
			{Name: "why", When: a.LastUserSays("Why that one"), Times: 1, Reply: say("It is calm and easy to read.")},
			{Name: "another", When: a.LastUserSays("Pick another one"), Times: 1, Reply: say("Ochre, then.")},
		},
	},
	{
		Name: "denied",
		About: "A Bash call a deny rule refuses (--disallowedTools 'Bash(rm *)'): a " +
			"permissionDecision and an error result.",
		Steps: []Step{{Prompt: "Remove the build folder.", Args: []string{"--allowedTools", "Read", "--disallowedTools", "Bash(rm *)"}}},
		Ends:  []string{"done"},
		Rules: []a.Rule{
			{Name: "rm", When: a.LastUserSays("Remove the build folder"), Times: 1,
				Reply: call("Removing it.", "toolu_denied_rm", "Bash", `{"command":"rm -rf build","description":"Remove the build folder"}`)},
			{Name: "done", When: a.ToolResult("toolu_denied_rm"), Times: 1, Reply: say("I am not allowed to remove it here.")},
		},
	},
	{
		Name: "large-output",
		About: "A Bash command printing 53 KB: the CLI keeps the output in a side file " +
			"(tool-results/ID.txt) and gives the model a <persisted-output> preview.",
		Files:  map[string][]byte{"big.log": largeLog()},
		Steps:  []Step{{Prompt: "Show me big.log.", Args: []string{"--allowedTools", "Bash"}}},
		Expect: []string{"*/tool-results/*.txt"},
		Ends:   []string{"done"},
		Rules: []a.Rule{
			{Name: "cat", When: a.LastUserSays("Show me big.log"), Times: 1,
				Reply: call("Printing it.", "toolu_large_cat", "Bash", `{"command":"cat big.log","description":"Print the log"}`)},
			{Name: "done", When: a.ToolResult("toolu_large_cat"), Times: 1, Reply: say("The log has 1,000 lines, all of them OK.")},
		},
	},
	{
		Name:  "interrupt",
		About: "A Write the user refuses at the permission prompt, interrupting the turn (stream-json, --permission-prompt-tool stdio, denied with interrupt).",
		Steps: []Step{{Interrupt: true, Fails: true, Input: []string{userMessage("Save a note saying done.")}}},
		Ends:  []string{"write"},
		Rules: []a.Rule{
			{Name: "write", When: a.LastUserSays("Save a note"), Times: 1,
				Reply: call("Saving it.", "toolu_int_write", "Write", `{"file_path":"/tmp/rlog-producers/claude/interrupt/work/note.txt","content":"done\n"}`)},
		},
	},
	{
		Name: "thinking-image",
		About: "A prompt with an image (stream-json input); an answer with a thinking block " +
			"(signed) that reads a PNG file; then one with a redacted thinking block.",
		Files: map[string][]byte{"chart.png": pngImage(color.RGBA{200, 40, 40, 255})},
		Steps: []Step{{Input: []string{userMessage("Compare this picture with chart.png.",
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png",
				"data": base64.StdEncoding.EncodeToString(pngImage(color.RGBA{40, 40, 200, 255}))}})},
			Args: []string{"--allowedTools", "Read"}}},
		Ends: []string{"redacted"},
		Rules: []a.Rule{
			{Name: "think", When: a.LastUserSays("Compare this picture"), Times: 1, Reply: a.Reply{Content: []a.Block{
				a.Thinking("The user sent a blue square; chart.png needs to be read to compare.", "c2lnbmF0dXJlLXRoaW5r"),
				a.Text("Let me look at chart.png."),
				a.ToolUse("toolu_think_read", "Read", `{"file_path":"/tmp/rlog-producers/claude/thinking-image/work/chart.png"}`)}}},
			{Name: "redacted", When: a.ToolResult("toolu_think_read"), Times: 1, Reply: a.Reply{Content: []a.Block{
				a.RedactedThinking("ZW5jcnlwdGVkLXJlYXNvbmluZy1zdGFuZC1pbg=="),
				a.Text("Your picture is a blue square; chart.png is a red one.")}}},
		},
	},
	comparePair("compare-a", "wc -l notes.txt", "Counting the lines."),
	// The same task with one scripted answer changed: the second call
	// counts words, not lines (what rlog-ls compare must find).
	comparePair("compare-b", "wc -w notes.txt", "Counting the words."),
}

// compactionRequest matches the request that asks for a compaction's
// summary, manual or automatic; continuedRequest one whose conversation
// starts from such a summary.
var (
	compactionRequest = a.LastUserHas("Your task is to create a detailed summary of the conversation so far")
	continuedRequest  = a.FirstUserSays("This session is being continued from a previous conversation")
)

// comparePair is one of two runs of the same task that differ in one
// scripted answer: the second call's command (and what it says before
// it). Each runs in its own folder, as two runs of a task do.
func comparePair(name, count, saying string) *Scenario {
	work := "/tmp/rlog-producers/claude/" + name + "/work"
	return &Scenario{
		Name: name,
		About: "One of two runs of the same task with one scripted answer changed (compare-a counts the " +
			"lines of the notes, compare-b the words), for rlog-ls compare: read a file, run a command, answer.",
		Files: map[string][]byte{"notes.txt": []byte("alpha\nbeta\ngamma\n")},
		Steps: []Step{{Prompt: "How long are the notes in this folder?", Args: []string{"--allowedTools", "Bash", "Read"}}},
		Ends:  []string{"done"},
		Rules: []a.Rule{
			{Name: "read", When: a.LastUserSays("How long are the notes"), Times: 1,
				Reply: call("I'll read the notes first.", "toolu_cmp_read", "Read", `{"file_path":"`+work+`/notes.txt"}`)},
			{Name: "count", When: a.ToolResult("toolu_cmp_read"), Times: 1,
				Reply: call(saying, "toolu_cmp_count", "Bash", `{"command":"`+count+`","description":"Measure the notes"}`)},
			{Name: "done", When: a.ToolResult("toolu_cmp_count"), Times: 1, Reply: say("That is how long the notes are.")},
		},
	}
}

// twiceSummary is the compaction-twice scenario's summary, with usage.
func twiceSummary(u a.Usage) a.Reply {
	return a.Reply{Content: []a.Block{a.Text("<analysis>\nThe user asked me to remember a word, then to count.\n</analysis>\n\n<summary>\n" +
		"1. Primary Request and Intent: remember the word heron; count the files, then the folders.\n" +
		"2. Current Work: counting.\n</summary>")}, Usage: u}
}

// say is a reply of text blocks.
func say(texts ...string) a.Reply {
	var r a.Reply
	for _, t := range texts {
		r.Content = append(r.Content, a.Text(t))
	}
	return r
}

// call is a reply that says text and calls one tool.
func call(text, id, tool, input string) a.Reply {
	return a.Reply{Content: []a.Block{a.Text(text), a.ToolUse(id, tool, input)}}
}

// userMessage is a stream-json user message saying text, with more
// content blocks after it.
func userMessage(text string, more ...map[string]any) string {
	content := []map[string]any{{"type": "text", "text": text}}
	content = append(content, more...)
	b, err := json.Marshal(map[string]any{"type": "user", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": content}})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// largeLog is 53 KB of log lines, more than the CLI keeps inline in a
// tool result.
func largeLog() []byte {
	var b bytes.Buffer
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&b, "2026-01-01T00:00:%02dZ line %04d status=OK detail=%s\n", i%60, i, "abcd")
	}
	return b.Bytes()
}

// pngImage is a 16×16 square of one colour, as PNG.
func pngImage(c color.RGBA) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for y := 0; y < 16; y++ {
		for x := 0; x < 16; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// ScenarioNamed is the scenario called name, or nil.
func ScenarioNamed(name string) *Scenario { return driver.Named(name) }
