package usage

// Codex is the usage of one API response as Codex CLI records it in a
// rollout (a token_usage_record's usage {input_tokens,
// cached_input_tokens, cache_write_input_tokens, output_tokens,
// reasoning_output_tokens}, the Responses API's numbers). OpenAI counts
// the cached tokens inside the input and the reasoning inside the output;
// Counts keeps input apart from the cache, as Anthropic does. So In is the
// input less the cached and cache-written tokens, Cached and CacheCreate
// those, Out the output, reasoning included (it is not added again). Their
// sum is input plus output, the response's total_tokens, which is what
// Codex adds up for a thread.
func Codex(input, cached, cacheWrite, output uint64) Counts {
	in := uint64(0)
	if input > cached+cacheWrite {
		in = input - cached - cacheWrite
	}
	return Counts{In: in, Out: output, Cached: cached, CacheCreate: cacheWrite}
}
