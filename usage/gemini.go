package usage

// Gemini is the usage of one model answer as Gemini CLI records it in a
// session (a gemini message's tokens {input, output, cached, thoughts,
// tool}, the API's promptTokenCount, candidatesTokenCount,
// cachedContentTokenCount, thoughtsTokenCount and toolUsePromptTokenCount).
// Gemini counts the cached tokens inside the prompt and the thoughts and
// the tool-use prompt beside the answer and the prompt; Counts keeps input
// apart from cached, as Anthropic does. So In is the prompt less the cached
// tokens, with the tool-use prompt; Out the answer with the thoughts
// (reasoning is output, as OpenAI counts it); Cached the cached tokens. Their
// sum is the answer's total, which is what the CLI's own account
// (stats.models.MODEL.roles.ROLE.tokens) sums: In = its input (prompt −
// cached) + tool, Out = candidates + thoughts, Cached = cached.
func Gemini(input, output, cached, thoughts, tool uint64) Counts {
	in := uint64(0)
	if input > cached {
		in = input - cached
	}
	return Counts{In: in + tool, Out: output + thoughts, Cached: cached}
}
