package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GrantsSuspendedException;
import org.meshjava.steward.NotIssuerException;

/**
 * Every refused serve's message is the steward's words without its reason's name before them (SPEC
 * 70, "Errors"): the 503 {@code grants_suspended} answer, written by the grant branch rather than
 * the reason table, still read "GRANTS_SUSPENDED: ..." beside its code, which the SDKs print after
 * the status.
 */
class RefusalMessageWordsTest {

  @Test
  void suspendedGrants_readTheWordsAlone() {
    Reply.Json suspended = Endpoints.refusal(new GrantsSuspendedException("cut journal"));
    assertThat(suspended.body().at("/error/message").asText()).isEqualTo("cut journal");
  }

  @Test
  void aGateDenial_keepsItsLabel_whichIsNoReasonName() {
    Reply.Json notIssuer =
        Endpoints.refusal(new NotIssuerException(DenialLabel.BAD_SIGNATURE, "changed", null));
    assertThat(notIssuer.body().at("/error/message").asText()).isEqualTo("bad-signature: changed");
  }

  /**
   * An upstream's refusal, as a steward refuses it: its text, which names what the operator runs,
   * never reaches the client, which reads the status alone ({@link
   * UpstreamRefusedException#clientWords()}) after the steward's own words (SPEC.md 60.10).
   */
  @Test
  void anUpstreamsWords_areReplacedByItsStatus_theStewardsWordsBeforeThemKept() {
    UpstreamRefusedException upstream =
        new UpstreamRefusedException(500, "model secret-llama on gpu-7");
    try (Fixture f =
        new Fixture(null, b -> b.backend(ThrowingEngine.named("up", upstream)), b -> {})) {
      String message =
          f.post("/v1/chat/completions", Fixture.chat("boom"))
              .error(502, "engine_failed")
              .get("message")
              .asText();
      assertThat(message).isEqualTo("backend up failed: " + upstream.shown());
      assertThat(message).doesNotContain("secret-llama", "gpu-7");
    }
  }

  /**
   * An upstream that refused the request itself (422) is the client's 400 {@code upstream_refused},
   * told by its status alone too.
   */
  @Test
  void anUpstreamRefusingTheRequest_isShownAsItsStatusAlone() {
    UpstreamRefusedException upstream =
        new UpstreamRefusedException(422, "prompt too long for secret-llama on gpu-7");
    try (Fixture f =
        new Fixture(null, b -> b.backend(ThrowingEngine.named("up", upstream)), b -> {})) {
      String message =
          f.post("/v1/chat/completions", Fixture.chat("boom"))
              .error(400, "upstream_refused")
              .get("message")
              .asText();
      assertThat(message).isEqualTo("backend up failed: " + upstream.shown());
    }
  }
}
