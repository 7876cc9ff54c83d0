package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The replies real OpenAI-compatible servers send in normal operation, whole and streamed, are
 * served: the fields beside the text that each adds (OpenAI's {@code refusal: null}, {@code
 * annotations: []}, {@code audio: null} and {@code logprobs}; vLLM's {@code tool_calls: []} and
 * {@code stop_reason}; LiteLLM's {@code tool_calls: null} and {@code function_call: null}; Azure's
 * filter results; comments, {@code id:}, {@code retry:} and events of other names in a stream) are
 * no reason to refuse one.
 */
class UpstreamEverydayShapesTest {
  private static final String USAGE =
      "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}";

  private static final String[] WHOLE = {
    // OpenAI
    "{\"id\":\"chatcmpl-x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"gpt-4o\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"abc\","
        + "\"refusal\":null,\"annotations\":[],\"audio\":null},\"logprobs\":null,"
        + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
        + "\"total_tokens\":5,\"prompt_tokens_details\":{\"cached_tokens\":0,\"audio_tokens\":0},"
        + "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0,"
        + "\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}},"
        + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_x\"}",
    // vLLM
    "{\"id\":\"chatcmpl-x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"reasoning_content\":null,"
        + "\"content\":\"abc\",\"tool_calls\":[]},\"logprobs\":null,\"finish_reason\":\"stop\","
        + "\"stop_reason\":null}],\"usage\":{\"prompt_tokens\":3,\"total_tokens\":5,"
        + "\"completion_tokens\":2,\"prompt_tokens_details\":null},\"prompt_logprobs\":null,"
        + "\"kv_transfer_params\":null}",
    // llama.cpp
    "{\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"abc\"}}],\"created\":1,\"model\":\"m\",\"system_fingerprint\":\"b1\","
        + "\"object\":\"chat.completion\","
        + USAGE
        + ",\"id\":\"chatcmpl-x\",\"timings\":{\"prompt_n\":3,\"prompt_ms\":1.5}}",
    // LiteLLM, Mistral
    "{\"id\":\"x\",\"created\":1,\"model\":\"m\",\"object\":\"chat.completion\","
        + "\"system_fingerprint\":null,\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,"
        + "\"message\":{\"content\":\"abc\",\"role\":\"assistant\",\"tool_calls\":null,"
        + "\"function_call\":null,\"provider_specific_fields\":null}}],"
        + USAGE
        + "}",
    // LM Studio
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{"
        + "\"index\":0,\"logprobs\":null,\"finish_reason\":\"stop\",\"message\":{\"role\":"
        + "\"assistant\",\"content\":\"abc\",\"reasoning_content\":\"\",\"tool_calls\":[]}}],"
        + USAGE
        + ",\"stats\":{},\"system_fingerprint\":\"m\"}",
    // Azure OpenAI
    "{\"choices\":[{\"content_filter_results\":{\"hate\":{\"filtered\":false,\"severity\":"
        + "\"safe\"}},\"finish_reason\":\"stop\",\"index\":0,\"logprobs\":null,\"message\":{"
        + "\"annotations\":[],\"content\":\"abc\",\"refusal\":null,\"role\":\"assistant\"}}],"
        + "\"created\":1,\"id\":\"x\",\"model\":\"m\",\"object\":\"chat.completion\","
        + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{}}],"
        + USAGE
        + "}",
    // OpenRouter
    "{\"id\":\"gen-1\",\"provider\":\"p\",\"model\":\"m\",\"object\":\"chat.completion\","
        + "\"created\":1,\"choices\":[{\"logprobs\":null,\"finish_reason\":\"stop\","
        + "\"native_finish_reason\":\"stop\",\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"abc\",\"refusal\":null,\"reasoning\":null}}],\"usage\":{"
        + "\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5,\"cost\":0.00001}}",
  };

  @Test
  void everydayWholeReplies_areServed() throws Exception {
    for (String reply : WHOLE) {
      var r = UpstreamChoicesTest.whole(reply);
      assertThat(UpstreamEventFieldsTest.text(r)).as(reply).isEqualTo("abc");
      assertThat(r.outcome().tokensOut()).as(reply).isEqualTo(2);
    }
  }

  private static final String OPENAI_FIRST =
      "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
          + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp\",\"choices\":[{\"index\":0,"
          + "\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},\"logprobs\":null,"
          + "\"finish_reason\":null}],\"usage\":null,\"obfuscation\":\"q\"}\n\n";

  private static final String OPENAI_TEXT =
      "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
          + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\"},\"logprobs\":null,"
          + "\"finish_reason\":null}],\"usage\":null}\n\n";

  private static final String OPENAI_STOP =
      "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,"
          + "\"finish_reason\":\"stop\"}],\"usage\":null}\n\n";

  private static final String OPENAI_USAGE =
      "data: {\"id\":\"x\",\"choices\":[]," + USAGE + ",\"obfuscation\":\"q\"}\n\n";

  private static final String[][] STREAMS = {
    {OPENAI_FIRST, OPENAI_TEXT, OPENAI_STOP, OPENAI_USAGE, "data: [DONE]\n\n"},
    // Azure's first event has no choices, only the prompt's filter results
    {
      "data: {\"choices\":[],\"created\":0,\"id\":\"\",\"model\":\"\",\"object\":\"\","
          + "\"prompt_filter_results\":[{\"prompt_index\":0,\"content_filter_results\":{}}]}\n\n",
      OPENAI_FIRST,
      OPENAI_TEXT,
      OPENAI_STOP,
      OPENAI_USAGE,
      "data: [DONE]\n\n"
    },
    // LiteLLM
    {
      "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"abc\",\"role\":"
          + "\"assistant\",\"function_call\":null,\"tool_calls\":null,\"audio\":null,"
          + "\"provider_specific_fields\":null,\"reasoning_content\":null},\"finish_reason\":null,"
          + "\"logprobs\":null}]}\n\n",
      "data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":null,\"role\":null,"
          + "\"function_call\":null,\"tool_calls\":null},\"finish_reason\":\"stop\"}]}\n\n",
      OPENAI_USAGE,
      "data: [DONE]\n\n"
    },
    // llama.cpp (older): the stop and the usage in one event
    {
      "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\"abc\"}}],"
          + "\"object\":\"chat.completion.chunk\"}\n\n",
      "data: {\"choices\":[{\"finish_reason\":\"stop\",\"index\":0,\"delta\":{}}],"
          + USAGE
          + ",\"timings\":{\"predicted_n\":2}}\n\n",
      "data: [DONE]\n\n"
    },
    // TGI: no space after data:, tool_call_id null
    {
      "data:{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
          + "\"assistant\",\"content\":\"abc\",\"tool_call_id\":null},\"logprobs\":null,"
          + "\"finish_reason\":null}],\"usage\":null}\n\n",
      "data:{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
          + "\"finish_reason\":\"stop\"}],"
          + USAGE
          + "}\n\n",
      "data:[DONE]\n\n"
    },
    // comments, ids, retry, events of other names, CR LF line ends
    {
      ": OPENROUTER PROCESSING\r\n\r\n",
      "retry: 3000\r\nid: 1\r\nevent: message\r\n" + OPENAI_TEXT.replace("\n\n", "\r\n\r\n"),
      ": keep-alive\n\n",
      "event: completion\n" + OPENAI_STOP,
      OPENAI_USAGE.replace("\n\n", "\r\r"),
      "data: [DONE]\r\n\r\n"
    },
  };

  @Test
  void everydayStreams_areServed() throws Exception {
    for (String[] events : STREAMS) {
      var r = UpstreamEventFieldsTest.streamed(events);
      assertThat(UpstreamEventFieldsTest.text(r)).as(events[0]).isEqualTo("abc");
      assertThat(r.outcome().tokensOut()).as(events[0]).isEqualTo(2);
    }
  }
}
