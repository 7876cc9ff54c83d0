package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborRule;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;

/**
 * A caller that handles failures of many kinds reads each one's reason and detail through {@link
 * ReasonedException}; one that knows the type gets its own enum from the same accessor.
 */
class ReasonedExceptionTest {

  @Test
  void reason_isTheSubclassEnum_andDetailIsTheMessageWithoutItsPrefix() {
    CborDecodeException e = new CborDecodeException(CborRule.values()[0], 7, "what went wrong");
    ReasonedException any = e;

    assertThat(any.reason()).isSameAs(CborRule.values()[0]).isSameAs(e.rule());
    assertThat(any.detail()).isEqualTo("what went wrong");
    assertThat(e.getMessage()).isEqualTo(CborRule.values()[0] + " at offset 7: what went wrong");
  }

  @Test
  void aRefusalOfTheApi_isReadTheSameWay() {
    ReasonedException any = null;
    try {
      DidKey.parse("did:web:example.com");
    } catch (DidKeyException e) {
      any = e;
    }

    assertThat(any).isNotNull();
    assertThat(any.reason()).isEqualTo(DidKeyException.Reason.PREFIX);
    assertThat(any.detail()).isEqualTo(any.getMessage());
  }
}
