package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.crypto.SigningKey;

/**
 * A grant's own rules (SPEC.md, JCP section): the values it accepts at their edges, its canonical
 * form, the longest chain, unknown caveats in a chain, and how a child must keep a parent's unknown
 * caveat (fail closed, JCP profile "Caveats").
 */
class GrantRulesTest {

  private static Grant grant(long budget, Instant notBefore, Instant expiry) {
    return new Grant(
        ORG_DID,
        CALLER_DID,
        Set.of(Grant.INFER),
        Resources.all(),
        budget,
        notBefore,
        expiry,
        List.of(),
        Optional.empty());
  }

  @Test
  void grant_acceptsAZeroBudgetAndAWindowFromTheEpoch() throws Exception {
    Grant g = grant(0, Instant.EPOCH, T0);
    assertThat(g.budgetUj()).isZero();
    assertThat(g.notBefore()).isEqualTo(Instant.EPOCH);
    // Both survive a round trip through the wire form.
    SignedGrant back = SignedGrant.decode(SignedGrant.sign(ORG, g).encode());
    assertThat(back.grant()).isEqualTo(g);
    Grant built =
        Grant.builder().issuer(ORG_DID).subject(CALLER_DID).budgetUj(0).window(T0, T_END).build();
    assertThat(built.budgetUj()).isZero();
  }

  @Test
  void grant_refusesFractionalSecondsAndTimesBeforeTheEpoch() {
    assertThatThrownBy(() -> grant(1, T0.plusMillis(1), T_END))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> grant(1, T0, T_END.plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> grant(1, Instant.EPOCH.minusSeconds(1), T_END))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> grant(-1, T0, T_END)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> Grant.builder().issuer(ORG_DID).subject(CALLER_DID).window(T0, T_END).build())
        .as("a builder without a budget")
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void builderActions_replaceTheEarlierOnes() {
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of("embed"))
            .actions(Set.of(Grant.INFER))
            .budgetUj(1)
            .window(T0, T_END)
            .build();
    assertThat(g.actions()).containsExactly(Grant.INFER);
  }

  @Test
  void actions_areEncodedInTheOrderOfTheirEncodings_notAlphabetically() throws Exception {
    // "b" (0x61 0x62) < "aa" (0x62 …) < "infer" (0x65 …) bytewise, unlike the alphabet.
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of("infer", "aa", "b"))
            .budgetUj(1)
            .window(T0, T_END)
            .build();
    assertThat(g.toCbor().get("actions"))
        .contains(CborArray.of(CborText.of("b"), CborText.of("aa"), CborText.of("infer")));
    SignedGrant signed = SignedGrant.sign(ORG, g);
    assertThat(SignedGrant.decode(signed.encode())).isEqualTo(signed);
  }

  @Test
  void issueRoot_refusesAGrantThatNamesAParent() throws Exception {
    GrantChain root = directChain(5_000);
    Grant child = Grant.delegatedFrom(root.root()).subject(OTHER_STEWARD_DID).build();
    assertThat(child.isRoot()).isFalse();
    assertThat(root.root().grant().isRoot()).isTrue();
    assertThat(assertThrows(IssuanceException.class, () -> Jcp.issueRoot(STEWARD, child)).problem())
        .isEqualTo(IssuanceProblem.BROKEN_CHAIN);
  }

  /** A chain of {@code links} links, each held by the next key and delegated on. */
  private static GrantChain chainOf(int links) throws Exception {
    List<SigningKey> keys = new ArrayList<>();
    for (int i = 0; i <= links; i++) {
      keys.add(key(40 + i));
    }
    GrantChain chain = Jcp.issueRoot(keys.get(0), Jcp.identity(keys.get(1)), 1_000_000, T0, T_END);
    for (int i = 1; i < links; i++) {
      chain = Jcp.delegate(keys.get(i), chain, Jcp.identity(keys.get(i + 1)), 1_000_000);
    }
    return chain;
  }

  @Test
  void aChainOfSixteenLinks_isTheLongestAccepted() throws Exception {
    GrantChain longest = chainOf(GrantChain.MAX_LINKS);
    assertThat(longest.links()).hasSize(16);
    longest.verify();
    assertThat(GrantChain.decode(longest.encode())).isEqualTo(longest);
    SignedGrant extra =
        SignedGrant.sign(
            key(40 + 16), Grant.delegatedFrom(longest.leaf()).subject(STEWARD_DID).build());
    assertThatThrownBy(() -> longest.extend(extra)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void verify_refusesAChainCarryingAnUnknownCaveat_namingTheLink() throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END);
    GrantChain chain = Jcp.delegate(CALLER, root, STEWARD_DID, 5_000, GateDecideTest.geoCaveat());
    GrantRefusedException e = assertThrows(GrantRefusedException.class, chain::verify);
    assertThat(e.label()).isEqualTo(DenialLabel.UNKNOWN_CAVEAT);
    assertThat(e.link()).hasValue(1);
    root.verify();
  }

  private static UnknownCaveat caveat(String kind) {
    return new UnknownCaveat(kind, CborMap.builder().put("caveat", kind).put("x", 1).build());
  }

  /** ORG → CALLER under {@code rootCaveat}, and CALLER → STEWARD under {@code childCaveat}. */
  private static GrantChain withUnknownCaveats(UnknownCaveat rootCaveat, UnknownCaveat childCaveat)
      throws Exception {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, 5_000, T0, T_END, rootCaveat);
    Grant child =
        Grant.delegatedFrom(root.leaf()).subject(STEWARD_DID).caveats(List.of(childCaveat)).build();
    return root.extend(SignedGrant.sign(CALLER, child));
  }

  @Test
  void anUnknownCaveat_isKeptOnlyByAnIdenticalCopy() throws Exception {
    GrantRefusedException kept =
        assertThrows(
            GrantRefusedException.class,
            () -> withUnknownCaveats(caveat("Geo"), caveat("Geo")).verify());
    // Attenuation holds, so the refusal is for the kind itself, at the root.
    assertThat(kept.label()).isEqualTo(DenialLabel.UNKNOWN_CAVEAT);
    assertThat(kept.link()).hasValue(0);
    GrantRefusedException swapped =
        assertThrows(
            GrantRefusedException.class,
            () -> withUnknownCaveats(caveat("Geo"), caveat("Time")).verify());
    assertThat(swapped.label()).isEqualTo(DenialLabel.NOT_ATTENUATED);
    assertThat(swapped.link()).hasValue(1);
  }

  @Test
  void caveatKinds_areTheirWireNames() {
    for (Caveat c : List.of(ModelIn.of(WEIGHTS_A), new MaxCostUj(1), caveat("Geo"))) {
      assertThat(Grant.caveatCbor(c).get(Caveat.KIND_KEY)).contains(CborText.of(c.kind()));
    }
    assertThat(ModelIn.of(WEIGHTS_A).kind()).isEqualTo(ModelIn.KIND).isEqualTo("ModelIn");
    assertThat(new MaxCostUj(1).kind()).isEqualTo(MaxCostUj.KIND).isEqualTo("MaxCostUj");
  }

  @Test
  void grantId_printsAsItsWireHex() throws Exception {
    // The CLI prints grant ids by string concatenation for users to copy into later commands.
    GrantId id = directChain(5_000).root().id();
    assertThat(id.toString()).isEqualTo(id.hex()).hasSize(64);
    assertThat(GrantId.fromHex(id.toString())).isEqualTo(id);
  }

  @Test
  void signedGrant_verifySignature_refusesAForgedOne_namingNoLink() throws Exception {
    SignedGrant good = directChain(5_000).root();
    good.verifySignature();
    byte[] sig = good.signature();
    sig[5] ^= 1;
    SignedGrant forged = SignedGrant.of(good.grant(), sig);
    GrantRefusedException e = assertThrows(GrantRefusedException.class, forged::verifySignature);
    assertThat(e.label()).isEqualTo(DenialLabel.BAD_SIGNATURE);
    assertThat(e.link()).isEmpty();
    assertThat(forged).isNotEqualTo(good);
    assertThat(forged.id()).isNotEqualTo(good.id());
  }

  @Test
  void presentations_areEqualExactlyWhenTheirBytesAre() throws Exception {
    GrantChain chain = directChain(5_000);
    Presentation p = present(chain, REQUEST, 1);
    assertThat(p).isNotEqualTo(present(chain, REQUEST, 2)).isNotEqualTo(null);
    assertThat(p).isEqualTo(Presentation.decode(p.encode()));
    assertThat(p.caller()).isEqualTo(CALLER_DID);
    assertThat(p.nonce()).isEqualTo(nonce(1));
    assertThat(p.signature()).hasSize(64).isEqualTo(Presentation.decode(p.encode()).signature());
  }
}
