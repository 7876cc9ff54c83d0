package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;

/**
 * A hostile party holds a presentation it captured (the caller's own, seen on the wire) and edits
 * it to spend again. The signature covers the request, the leaf's id, the caller and the nonce
 * (§2.1, SPEC.md 30 §7), so every edit that keeps the signature is refused {@code bad-signature} as
 * the caller's failure (401), and nothing is spent or reserved by it.
 */
class CapturedPresentationTest {

  @Test
  void aCapturedPresentation_givenAFreshNonce_isRefusedAsBadSignature_andSpendsNothing()
      throws Exception {
    Gate gate = gate();
    GrantChain chain = directChain(5_000);
    Presentation captured = present(chain, REQUEST, 1);
    decide(gate, captured);
    // The spent pair is (leaf, nonce): a new nonce would dodge presentation-spent, so the
    // signature has to be what stops it.
    Presentation renonced =
        Presentation.of(chain, captured.caller(), nonce(2), captured.signature());

    GrantRefusedException e =
        assertThrows(GrantRefusedException.class, () -> decide(gate, renonced));

    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.callerNotAuthenticated()).isTrue();
    assertThat(gate.ledger().isSpent(chain.leaf().id(), nonce(2))).isFalse();
    assertThat(gate.remainingUj(chain)).isEqualTo(5_000 - CEILING);
  }

  @Test
  void aCapturedSignature_movedOntoASiblingLeafOfTheSameCaller_isRefusedAsBadSignature()
      throws Exception {
    Gate gate = gate();
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 10_000, T0, T_END);
    GrantChain small = Jcp.delegate(CALLER, root, STEWARD_DID, 2_000);
    GrantChain large = Jcp.delegate(CALLER, root, STEWARD_DID, 8_000);
    Presentation captured = present(small, REQUEST, 1);
    // Same caller, steward, request and nonce: only the leaf differs, so only grant_id tells.
    Presentation moved =
        Presentation.of(large, captured.caller(), captured.nonce(), captured.signature());

    GrantRefusedException e = assertThrows(GrantRefusedException.class, () -> decide(gate, moved));

    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.link()).isEmpty();
    assertThat(gate.remainingUj(large)).isEqualTo(8_000);
  }

  @Test
  void aPayloadSignedInAnotherEncodingOfTheSameMap_isRefusedAsBadSignature() throws Exception {
    GrantChain chain = directChain(5_000);
    PresentationNonce n = nonce(3);
    byte[] canonical = Presentation.signedPayload(REQUEST.id(), chain.leaf().id(), CALLER_DID, n);
    // The same four entries in the order §2.1 lists them, as a client that does not sort its map
    // keys by their encodings would write them. Canonical order is nonce, caller, grant_id,
    // request_id (shorter keys first).
    HexFormat hex = HexFormat.of();
    String listed =
        "a4"
            + "6a"
            + ascii("request_id")
            + "7840"
            + ascii(REQUEST.id().hex())
            + "68"
            + ascii("grant_id")
            + "7840"
            + ascii(chain.leaf().id().contentId().hex())
            + "66"
            + ascii("caller")
            + "7838"
            + ascii(CALLER_DID.value())
            + "65"
            + ascii("nonce")
            + "50"
            + hex.formatHex(n.bytes());
    byte[] unsorted = hex.parseHex(listed);
    assertThat(unsorted).hasSameSizeAs(canonical).isNotEqualTo(canonical);
    Presentation p = Presentation.of(chain, CALLER_DID, n, CALLER.sign(unsorted));

    GrantRefusedException e = assertThrows(GrantRefusedException.class, () -> decide(gate(), p));

    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.callerNotAuthenticated()).isTrue();
  }

  private static String ascii(String s) {
    return HexFormat.of().formatHex(s.getBytes(StandardCharsets.US_ASCII));
  }
}
