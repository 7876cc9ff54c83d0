package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.core.identity.DidKey;

/**
 * The gate remembers the chains it has verified (by every link's id, the BLAKE3 of the link's
 * signed envelope), so the links' signatures are checked once per chain, not per request. These
 * tests hold what that memo may not skip: a link differing in one bit from a remembered one, in its
 * issuer's key, its signed grant or its signature, is verified afresh and refused; and everything
 * that depends on the decision (window, revocation) is checked on every request, warm or not.
 */
class GateChainCacheTest {
  /** A root link with one bit of its signature flipped, behind a remembered chain's leaf. */
  @Test
  void aRememberedChain_withOneBitOfARootSignatureFlipped_isRefused() throws Exception {
    Gate gate = Fixture.gate();
    GrantChain chain = rememberedTwoLinkChain(gate);
    byte[] signature = chain.root().signature();
    signature[17] ^= 0x08;
    assertRootRefused(gate, SignedGrant.of(chain.root().grant(), signature), chain);
  }

  /** A root link whose signed grant differs in one bit (its budget), signature unchanged. */
  @Test
  void aRememberedChain_withOneBitOfARootGrantFlipped_isRefused() throws Exception {
    Gate gate = Fixture.gate();
    GrantChain chain = rememberedTwoLinkChain(gate);
    Grant g = chain.root().grant();
    Grant flipped =
        new Grant(
            g.issuer(),
            g.subject(),
            g.actions(),
            g.resources(),
            g.budgetUj() ^ 1,
            g.notBefore(),
            g.expiry(),
            g.caveats(),
            g.parent());
    assertRootRefused(gate, SignedGrant.of(flipped, chain.root().signature()), chain);
  }

  /**
   * A root link naming an issuer key one bit away from the real one (the first such bit that gives
   * a valid curve point), grant and signature otherwise unchanged.
   */
  @Test
  void aRememberedChain_withOneBitOfTheRootIssuersKeyFlipped_isRefused() throws Exception {
    Gate gate = Fixture.gate();
    GrantChain chain = rememberedTwoLinkChain(gate);
    Grant g = chain.root().grant();
    Grant flipped =
        new Grant(
            oneBitAway(g.issuer()),
            g.subject(),
            g.actions(),
            g.resources(),
            g.budgetUj(),
            g.notBefore(),
            g.expiry(),
            g.caveats(),
            g.parent());
    assertRootRefused(gate, SignedGrant.of(flipped, chain.root().signature()), chain);
  }

  /**
   * The memo of verified chains is bounded (65 536 in a steward; 2 here): distinct chains beyond
   * the bound clear it rather than grow it, and a chain forgotten that way is verified again and
   * still accepted, and its forged variant still refused.
   */
  @Test
  void theVerifiedChains_stayWithinTheirBound_andAForgottenChainIsVerifiedAgain() throws Exception {
    Gate gate = new Gate(Fixture.STEWARD_DID, SpendLedger.inMemory(), Revocations.none(), 2);
    GrantChain first = Fixture.twoLinkChain(10_000);
    for (int i = 0; i < 3; i++) {
      GrantChain chain = i == 0 ? first : Fixture.twoLinkChain(10_000 + i);
      gate.release(Fixture.decide(gate, Fixture.present(chain, Fixture.REQUEST, 1)));
      assertThat(gate.verifiedChainCount()).as("after chain %d", i).isBetween(1, 2);
    }
    // The third chain cleared the memo, so the first is no longer in it: presented again, it is
    // verified again and remembered beside the third.
    assertThat(gate.verifiedChainCount()).as("before the first chain's return").isEqualTo(1);
    gate.release(Fixture.decide(gate, Fixture.present(first, Fixture.REQUEST, 2)));
    assertThat(gate.verifiedChainCount()).as("after the first chain's return").isEqualTo(2);
    byte[] signature = first.root().signature();
    signature[5] ^= 0x01;
    assertRootRefused(gate, SignedGrant.of(first.root().grant(), signature), first);
  }

  /**
   * Only a chain held here is remembered: a chain held by another steward, presented here again and
   * again, is refused {@code wrong-holder} each time and takes none of the memo's room, so a flood
   * of them cannot push out (by clearing the memo at its bound) the chains this gate serves. A
   * remembered chain skips the holder check too, so one remembered before that check would pass on
   * its second presentation.
   */
  @Test
  void aChainHeldByAnotherSteward_isNotRemembered() throws Exception {
    Gate gate = new Gate(Fixture.STEWARD_DID, SpendLedger.inMemory(), Revocations.none(), 2);
    rememberedTwoLinkChain(gate);
    GrantChain elsewhere =
        Jcp.issueRoot(Fixture.CALLER, Fixture.OTHER_STEWARD_DID, 5_000, Fixture.T0, Fixture.T_END);
    for (int nonce = 1; nonce <= 2; nonce++) {
      Presentation p = Fixture.present(elsewhere, Fixture.REQUEST, nonce);
      assertThatThrownBy(() -> gate.verifyPresentation(p, Fixture.REQUEST.id()))
          .isInstanceOfSatisfying(
              GrantRefusedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.WRONG_HOLDER));
    }
    assertThat(gate.verifiedChainCount()).as("chains remembered").isEqualTo(1);
  }

  /** ORG → CALLER → STEWARD, decided once by {@code gate} so that the chain is remembered. */
  private static GrantChain rememberedTwoLinkChain(Gate gate) throws Exception {
    GrantChain chain = Fixture.twoLinkChain(10_000);
    gate.release(Fixture.decide(gate, Fixture.present(chain, Fixture.REQUEST, 1)));
    return chain;
  }

  /**
   * {@code root} in place of the remembered chain's root, the leaf byte for byte the remembered
   * one, presented by its rightful caller with a fresh nonce: refused as a bad signature of link 0.
   */
  private static void assertRootRefused(Gate gate, SignedGrant root, GrantChain remembered)
      throws Exception {
    assertThat(root.id()).isNotEqualTo(remembered.root().id());
    GrantChain altered = new GrantChain(List.of(root, remembered.leaf()));
    Presentation p = Fixture.present(altered, Fixture.REQUEST, 2);
    assertThatThrownBy(() -> Fixture.decide(gate, p))
        .isInstanceOfSatisfying(
            GrantRefusedException.class,
            e -> {
              assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
              assertThat(e.link()).hasValue(0);
            });
  }

  /** The identity whose key differs from {@code did}'s in the first bit that keeps it a key. */
  private static DidKey oneBitAway(DidKey did) {
    byte[] key = did.verificationKey().bytes();
    for (int bit = 0; bit < key.length * 8; bit++) {
      byte[] flipped = key.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      try {
        return DidKey.of(VerificationKey.of(flipped));
      } catch (SignatureException notAPoint) {
        // Not a valid point: the next bit.
      }
    }
    throw new AssertionError("no key one bit away from " + did);
  }

  @Test
  void aVerifiedLeafBehindAForgedParent_isStillRefused() throws Exception {
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    SigningKey org = Jcp.newKey();
    SigningKey caller = Jcp.newKey();
    SigningKey steward = Jcp.newKey();
    GrantChain root =
        Jcp.issueRoot(
            org, Jcp.identity(caller), 1_000, now.minusSeconds(10), now.plusSeconds(3600));
    GrantChain chain = Jcp.delegate(caller, root, Jcp.identity(steward), 1_000);
    Gate gate = Gate.create(Jcp.identity(steward), SpendLedger.inMemory(), Revocations.none());
    ServeRequest r1 = request("one");
    gate.release(gate.decide(Jcp.present(caller, chain, r1), r1, Optional.empty(), now));
    // The same leaf, but behind a different (forged) root with a far larger budget.
    SigningKey forger = Jcp.newKey();
    GrantChain forgedRoot =
        Jcp.issueRoot(
            forger,
            Jcp.identity(caller),
            1_000_000_000,
            now.minusSeconds(10),
            now.plusSeconds(3600));
    GrantChain forged = new GrantChain(List.of(forgedRoot.root(), chain.leaf()));
    ServeRequest r2 = request("two");
    Presentation p = Presentation.sign(caller, forged, r2.id());
    assertThatThrownBy(() -> gate.decide(p, r2, Optional.empty(), now))
        .isInstanceOfSatisfying(
            GrantRefusedException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BROKEN_CHAIN));
  }

  private static ServeRequest request(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(ContentId.ofBytes(b), 3, new ServeBounds(3, Fidelity.F0, 10));
  }
}
