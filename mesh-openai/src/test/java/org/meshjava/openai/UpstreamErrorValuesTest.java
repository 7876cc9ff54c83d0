package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * Which values of a 200's {@code error} are an error, whole and streamed: null, {@code false}, 0
 * and an empty string say there is none, as both SDKs read them (a server writing every reply with
 * the key failed every serve on {@code false} or {@code ""}); an object (OpenAI's and vLLM's shape,
 * an empty one too), a list, a message, {@code true} or another number is one.
 */
class UpstreamErrorValuesTest {
  private static final String PARTS =
      "\"choices\":[{\"index\":0,\"message\":{\"content\":\"ab\"}}],"
          + "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}";

  private static long whole(String error) throws Exception {
    String reply = "{\"error\":" + error + "," + PARTS + "}";
    try (ScriptedUpstream up = new ScriptedUpstream(UpstreamWireTest.answering(200, reply))) {
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Values.", 8);
      return Fixture.remote(up.base())
          .serve(asked.request(), asked.payload())
          .outcome()
          .tokensOut();
    }
  }

  private static long streamed(String error) throws Exception {
    return UpstreamEventFieldsTest.streamed(
            "data: {\"error\":"
                + error
                + ",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ab\"}}]}\n\n",
            "data: {\"error\":"
                + error
                + ",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\n",
            "data: [DONE]\n\n")
        .outcome()
        .tokensOut();
  }

  @Test
  void nullFalseOrAnEmptyString_isNoError_wholeAndStreamed() throws Exception {
    for (String none : new String[] {"null", "false", "0", "0.0", "\"\""}) {
      assertThat(whole(none)).as(none).isEqualTo(1);
      assertThat(streamed(none)).as(none).isEqualTo(1);
    }
  }

  @Test
  void anObjectAMessageOrTrue_isAnError_wholeAndStreamed() throws Exception {
    for (String error :
        new String[] {"{\"message\":\"x\"}", "{}", "[]", "\"overloaded\"", "true", "1"}) {
      assertThatThrownBy(() -> whole(error))
          .as(error)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent an error in its reply (its words go to the server's log, at most a line a minute)");
      assertThatThrownBy(() -> streamed(error))
          .as(error)
          .isInstanceOf(EngineException.class)
          .hasMessage(
              "the upstream sent an error in its stream (its words go to the server's log, at most a line a minute)");
    }
  }
}
