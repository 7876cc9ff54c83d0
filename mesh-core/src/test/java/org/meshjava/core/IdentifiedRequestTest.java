package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The encoding and id a steward computes once per serve and hands down are the request's own, byte
 * for byte, for every kind of request (SPEC.md 10.2, 10.3): receipts, journal records and
 * conformance vectors read them in place of {@link ServeRequest#encode()} and {@link
 * ServeRequest#id()}.
 */
class IdentifiedRequestTest {
  private static final ServeRequest GENERATION = ServeRequestTest.workedExample();

  private static final ServeRequest DECISION = ServeRequestCborTest.DECISION;

  @Test
  void everyKindOfRequest_carriesItsOwnEncodingAndId() {
    for (ServeRequest r :
        List.of(GENERATION, DECISION, GENERATION.withModel("small"), DECISION.withModel("m+a"))) {
      IdentifiedRequest identified = IdentifiedRequest.of(r);
      assertThat(identified.request()).isSameAs(r);
      assertThat(identified.encoded()).isEqualTo(r.encode());
      assertThat(identified.encodedHex()).isEqualTo(HexFormat.of().formatHex(r.encode()));
      assertThat(identified.id()).isEqualTo(r.id());
    }
  }

  @Test
  void theWorkedExample_hasTheIdSpecMdGives() {
    assertThat(IdentifiedRequest.of(GENERATION).id().hex())
        .isEqualTo("64f74c8f31dca9ee91fe3d529c546720de0c595fb9c58182fd095b505a71cb14");
  }

  @Test
  void theEncodingHandedOut_isACopy() {
    IdentifiedRequest identified = IdentifiedRequest.of(GENERATION);
    identified.encoded()[0] ^= 1;
    assertThat(identified.encoded()).isEqualTo(GENERATION.encode());
    assertThat(identified.id()).isEqualTo(GENERATION.id());
  }

  @Test
  void equalRequests_makeEqualCarriers_andNoRequestNone() {
    assertThat(IdentifiedRequest.of(GENERATION))
        .isEqualTo(IdentifiedRequest.of(ServeRequestTest.workedExample()))
        .hasSameHashCodeAs(IdentifiedRequest.of(ServeRequestTest.workedExample()))
        .isNotEqualTo(IdentifiedRequest.of(DECISION));
    assertThatThrownBy(() -> IdentifiedRequest.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("request");
  }
}
