package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GrantDeniedException;

/** How the binding answers a refused grant (SPEC 30 §9, SPEC 70 Errors). */
class RefusalStatusTest {

  /**
   * Regression: SPEC.md gave the {@code malformed} label 403 while the binding answered 400 for a
   * presentation that did not decode; it is 400 wherever it is found.
   */
  @Test
  void malformedLabel_isAnswered400_evenWhenTheStewardReportsIt() {
    Reply r =
        Endpoints.refusal(new GrantDeniedException(DenialLabel.MALFORMED, "not a chain", null));

    assertThat(r.status()).isEqualTo(400);
    assertThat(((Reply.Json) r).body().get("error").get("code").asText())
        .isEqualTo("malformed_presentation");
  }

  @Test
  void everyOtherGrantRefusal_isAnswered403WithItsLabel() {
    for (DenialLabel label : DenialLabel.values()) {
      if (label == DenialLabel.MALFORMED) {
        continue;
      }
      Reply r = Endpoints.refusal(new GrantDeniedException(label, "refused", null));

      assertThat(r.status()).as(label.wire()).isEqualTo(403);
      assertThat(((Reply.Json) r).body().get("error").get("code").asText()).isEqualTo(label.wire());
    }
  }
}
