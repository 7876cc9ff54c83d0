package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;

/**
 * Where an upstream's stream ends, read as the official SDKs read it: data that starts with {@code
 * [DONE]} ends it whatever follows (the Python SDK and the Node SDK through v6; v7 wants it alone),
 * and data that does not start with it is an event: no whitespace is trimmed first.
 */
class UpstreamStreamDoneTest {
  private static final String ABC = UpstreamChoicesTest.event("\"index\":0,", "abc", "");

  @Test
  void dataStartingWithDone_endsTheStream_whateverFollows() throws Exception {
    for (String done :
        new String[] {
          "data: [DONE]\n\n",
          "data: [DONE] \n\n",
          "data:[DONE]x\n\n",
          "data: [DONE]\ndata: {not json}\n\n",
          "data: [DONE]{\"choices\":[{\"delta\":{\"content\":\"z\"}}]}\n\n"
        }) {
      var r =
          UpstreamEventFieldsTest.streamed(
              ABC, UpstreamChoicesTest.USAGE_EVENT, done, "data: {after the end}\n\n");
      assertThat(UpstreamEventFieldsTest.text(r)).as(done).isEqualTo("abc");
      assertThat(r.outcome().tokensOut()).as(done).isEqualTo(2);
    }
  }

  @Test
  void doneAfterLeadingWhitespace_isNoEnd_butAnEventThatIsNotJson() {
    for (String notDone : new String[] {"data:  [DONE]\n\n", "data: \t[DONE]\n\n"}) {
      assertThatThrownBy(
              () -> UpstreamEventFieldsTest.streamed(ABC, UpstreamChoicesTest.USAGE_EVENT, notDone))
          .as(notDone)
          .isInstanceOf(EngineException.class)
          .hasMessageStartingWith("the upstream sent a stream event that is not JSON: ");
    }
  }
}
