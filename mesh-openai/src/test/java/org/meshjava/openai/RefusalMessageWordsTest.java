package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.steward.GrantsSuspendedException;
import org.meshjava.steward.NotIssuerException;
import org.meshjava.steward.ServeException;

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
   * An upstream's refusal inside the steward's words: its text, which names what the operator runs,
   * is replaced by the status alone, and the steward's own words before it stay.
   */
  @Test
  void anUpstreamsWords_areReplacedByItsStatus_theStewardsWordsBeforeThemKept() {
    UpstreamRefusedException upstream =
        new UpstreamRefusedException(500, "model secret-llama on gpu-7");
    ServeException e =
        new ServeException(
            ServeException.Reason.ENGINE_FAILED,
            "backend up failed: " + upstream.getMessage(),
            upstream);
    assertThat(Endpoints.shown(e)).isEqualTo("backend up failed: " + upstream.shown());
  }

  /** Where the steward's words do not quote the upstream's, the status alone is shown. */
  @Test
  void anUpstreamRefusalNotQuoted_isShownAsItsStatusAlone() {
    UpstreamRefusedException upstream = new UpstreamRefusedException(503, "busy on gpu-7");
    ServeException e =
        new ServeException(ServeException.Reason.ENGINE_FAILED, "backend up failed", upstream);
    assertThat(Endpoints.shown(e)).isEqualTo(upstream.shown());
  }
}
