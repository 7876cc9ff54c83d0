package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.meshjava.jcp.Fixture.*;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborRule;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;

class EncodingTest {
  private static final HexFormat HEX = HexFormat.of();

  static MalformedGrantException malformed(Executable e) {
    return assertThrows(MalformedGrantException.class, e);
  }

  static GrantChain richChain() throws Exception {
    Grant root =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of("infer", "embed"))
            .resources(Resources.only(Set.of(REQUEST.id(), OTHER_REQUEST.id())))
            .budgetUj(123_456_789)
            .window(T0, T_END)
            .caveat(ModelIn.of(WEIGHTS_B, WEIGHTS_A))
            .caveat(new MaxCostUj(9_000))
            .build();
    GrantChain chain = Jcp.issueRoot(ORG, root);
    return Jcp.delegate(CALLER, chain, STEWARD_DID, 1_000_000, ModelIn.of(WEIGHTS_A));
  }

  @Test
  void signedGrant_roundTripsThroughBytesAndHex_withTheSameId() throws Exception {
    for (SignedGrant g : richChain().links()) {
      SignedGrant back = SignedGrant.decode(g.encode());
      assertThat(back).isEqualTo(g);
      assertThat(back.grant()).isEqualTo(g.grant());
      assertThat(back.id()).isEqualTo(g.id());
      assertThat(SignedGrant.fromHex(g.toHex())).isEqualTo(g);
      back.verifySignature();
    }
  }

  @Test
  void grantId_isBlake3OfTheSignedEnvelope() throws Exception {
    SignedGrant g = richChain().root();
    assertThat(g.id().contentId()).isEqualTo(ContentId.ofBytes(g.encode()));
    assertThat(GrantId.fromHex(g.id().hex())).isEqualTo(g.id());
  }

  @Test
  void chainAndPresentation_roundTrip() throws Exception {
    GrantChain chain = richChain();
    assertThat(GrantChain.decode(chain.encode())).isEqualTo(chain);
    assertThat(GrantChain.fromHex(chain.toHex())).isEqualTo(chain);
    Presentation p = present(chain, REQUEST, 7);
    Presentation back = Presentation.decode(p.encode());
    assertThat(back).isEqualTo(p);
    assertThat(Presentation.fromHex(p.toHex())).isEqualTo(p);
    back.verifyFor(REQUEST.id());
    assertThat(back.encode()).isEqualTo(p.encode());
  }

  @Test
  void grantsBuiltInAnyOrder_encodeIdentically() throws Exception {
    Grant a =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of("b", "aa", "infer"))
            .budgetUj(1)
            .window(T0, T_END)
            .caveat(new MaxCostUj(3))
            .caveat(ModelIn.of(WEIGHTS_A, WEIGHTS_B))
            .build();
    Grant b =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .actions(Set.of("infer", "aa", "b"))
            .budgetUj(1)
            .window(T0, T_END)
            .caveat(ModelIn.of(WEIGHTS_B, WEIGHTS_A))
            .caveat(new MaxCostUj(3))
            .build();
    assertThat(a.toCbor().encode()).isEqualTo(b.toCbor().encode());
  }

  @Test
  void unknownCaveat_survivesDecodingByteForByte_soItsSignatureStillVerifies() throws Exception {
    GrantChain chain = directChain(5_000, GateDecideTest.geoCaveat());
    SignedGrant back = SignedGrant.decode(chain.root().encode());
    back.verifySignature();
    assertThat(back.grant().caveats()).singleElement().isInstanceOf(UnknownCaveat.class);
    assertThat(((UnknownCaveat) back.grant().caveats().getFirst()).kind()).isEqualTo("Geo");
  }

  @Test
  void nonCanonicalCbor_isMalformedWithTheCborRule() {
    MalformedGrantException e = malformed(() -> SignedGrant.decode(HEX.parseHex("1817")));
    assertThat(e.malformation()).isEqualTo(Malformation.CBOR);
    assertThat(e.label()).isEqualTo(DenialLabel.MALFORMED);
    assertThat(((CborDecodeException) e.getCause()).rule()).isEqualTo(CborRule.NON_SHORTEST);
  }

  @Test
  void wrongShapes_areMalformedNamingTheField() throws Exception {
    SignedGrant g = directChain(5_000).root();
    CborMap grant = g.grant().toCbor();
    // An extra key.
    assertThat(
            malformed(
                    () ->
                        SignedGrant.decode(
                            envelope(with(grant, "extra", CborText.of("x")), g.signature())
                                .encode()))
                .field())
        .isEqualTo("signed_grant.grant.extra");
    // A missing key.
    assertThat(
            malformed(
                    () ->
                        SignedGrant.decode(
                            envelope(without(grant, "budget_uj"), g.signature()).encode()))
                .field())
        .isEqualTo("signed_grant.grant.budget_uj");
    // A signature of the wrong length.
    MalformedGrantException shortSig =
        malformed(() -> SignedGrant.decode(envelope(grant, new byte[63]).encode()));
    assertThat(shortSig.malformation()).isEqualTo(Malformation.LENGTH);
    // Not a map at all.
    assertThat(malformed(() -> SignedGrant.decode(HEX.parseHex("80"))).malformation())
        .isEqualTo(Malformation.SHAPE);
  }

  @Test
  void badDidKey_isMalformedDidKey() throws Exception {
    SignedGrant g = directChain(5_000).root();
    CborMap grant =
        with(without(g.grant().toCbor(), "issuer"), "issuer", CborText.of("did:key:z6MkNOTAKEY"));
    MalformedGrantException e =
        malformed(() -> SignedGrant.decode(envelope(grant, g.signature()).encode()));
    assertThat(e.malformation()).isEqualTo(Malformation.DID_KEY);
    assertThat(e.field()).isEqualTo("signed_grant.grant.issuer");
  }

  @Test
  void setsOutOfOrderOrRepeated_areMalformedValues() throws Exception {
    SignedGrant g = directChain(5_000).root();
    CborMap unordered =
        with(
            without(g.grant().toCbor(), "actions"),
            "actions",
            CborArray.of(CborText.of("infer"), CborText.of("embed")));
    MalformedGrantException outOfOrder =
        malformed(() -> SignedGrant.decode(envelope(unordered, g.signature()).encode()));
    assertThat(outOfOrder.malformation()).isEqualTo(Malformation.VALUE);
    assertThat(outOfOrder.field()).isEqualTo("signed_grant.grant.actions[1]");
    CborMap repeated =
        with(
            without(g.grant().toCbor(), "actions"),
            "actions",
            CborArray.of(CborText.of("infer"), CborText.of("infer")));
    MalformedGrantException twice =
        malformed(() -> SignedGrant.decode(envelope(repeated, g.signature()).encode()));
    assertThat(twice.malformation()).isEqualTo(Malformation.VALUE);
    assertThat(twice.field()).isEqualTo("signed_grant.grant.actions[1]");
    CborMap uppercaseId =
        with(
            without(g.grant().toCbor(), "resources"),
            "resources",
            CborArray.of(CborText.of(REQUEST.id().hex().toUpperCase(Locale.ROOT))));
    assertThat(
            malformed(() -> SignedGrant.decode(envelope(uppercaseId, g.signature()).encode()))
                .malformation())
        .isEqualTo(Malformation.CONTENT_ID);
  }

  @Test
  void windowThatEndsBeforeItStarts_isMalformedValue() throws Exception {
    SignedGrant g = directChain(5_000).root();
    CborMap backwards =
        with(without(g.grant().toCbor(), "expiry"), "expiry", new CborInt(T0.getEpochSecond()));
    assertThat(
            malformed(() -> SignedGrant.decode(envelope(backwards, g.signature()).encode()))
                .malformation())
        .isEqualTo(Malformation.VALUE);
  }

  @Test
  void grantTimesPastTheLatestInstant_areMalformedValue_namingTheField() throws Exception {
    SignedGrant g = directChain(5_000).root();
    // A uint up to 2^63 − 1 is well-formed here (SPEC.md §30), but java.time holds seconds only
    // to the year 1,000,000,000. Such a grant is refused naming its field; it used to be refused
    // naming only the grant, with java.time's "Instant exceeds minimum or maximum instant".
    for (String field : List.of("not_before", "expiry")) {
      CborMap far = with(without(g.grant().toCbor(), field), field, new CborInt(Long.MAX_VALUE));
      MalformedGrantException e =
          malformed(() -> SignedGrant.decode(envelope(far, g.signature()).encode()));
      assertThat(e.malformation()).isEqualTo(Malformation.VALUE);
      assertThat(e.field()).isEqualTo("signed_grant.grant." + field);
    }
  }

  @Test
  void aRevocationFromBeforeTheEpoch_isRefusedWhenSigned_notWrittenUndecodable() throws Exception {
    // revoked_from is a uint: a negative time used to be signed, and every steward then refused
    // the statement as malformed.
    assertThatThrownBy(
            () -> Revocation.sign(CALLER, directChain(5_000), Instant.EPOCH.minusSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("revoked_from");
    Revocation atEpoch = Revocation.sign(CALLER, directChain(5_000), Instant.EPOCH);
    assertThat(Revocation.decode(atEpoch.encode()).from()).isEqualTo(Instant.EPOCH);
  }

  @Test
  void presentationWithShortNonceOrBadCaller_isMalformed() throws Exception {
    Presentation p = present(directChain(5_000), REQUEST, 1);
    CborMap m = p.toCbor();
    assertThat(
            malformed(
                    () ->
                        Presentation.decode(
                            with(without(m, "nonce"), "nonce", CborBytes.of(new byte[15]))
                                .encode()))
                .malformation())
        .isEqualTo(Malformation.LENGTH);
    assertThat(
            malformed(
                    () ->
                        Presentation.decode(
                            with(without(m, "caller"), "caller", CborText.of("did:web:example.com"))
                                .encode()))
                .malformation())
        .isEqualTo(Malformation.DID_KEY);
    assertThat(
            malformed(
                    () ->
                        Presentation.decode(
                            with(without(m, "chain"), "chain", CborArray.of()).encode()))
                .malformation())
        .isEqualTo(Malformation.VALUE);
  }

  @Test
  void badHex_isMalformedHex() {
    assertThat(malformed(() -> Presentation.fromHex("zz")).malformation())
        .isEqualTo(Malformation.HEX);
    assertThat(malformed(() -> Presentation.fromHex("A0")).malformation())
        .isEqualTo(Malformation.HEX);
    assertThat(malformed(() -> GrantChain.fromHex("abc")).malformation())
        .isEqualTo(Malformation.HEX);
  }

  @Test
  void chainLongerThanTheLimit_isMalformed() throws Exception {
    SignedGrant g = directChain(5_000).root();
    List<CborValue> many = new ArrayList<>();
    for (int i = 0; i <= GrantChain.MAX_LINKS; i++) {
      many.add(g.toCbor());
    }
    assertThat(malformed(() -> GrantChain.decode(new CborArray(many).encode())).malformation())
        .isEqualTo(Malformation.VALUE);
  }

  /**
   * Fuzz: mutate a valid presentation's bytes at random. Every mutant either decodes to a
   * presentation that re-encodes to exactly the mutant, or is refused with a typed error; nothing
   * else escapes.
   */
  @Test
  void mutatedPresentations_decodeExactlyOrFailTyped() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    byte[] valid = present(richChain(), REQUEST, 3).encode();
    int decoded = 0;
    for (int i = 0; i < 1_000; i++) {
      byte[] mutant = valid.clone();
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits; e++) {
        mutant[random.nextInt(mutant.length)] = (byte) random.nextInt(256);
      }
      if (random.nextInt(10) == 0) {
        mutant = Arrays.copyOf(mutant, random.nextInt(mutant.length));
      }
      try {
        Presentation p = Presentation.decode(mutant);
        assertThat(p.encode()).as("seed %d, case %d", seed, i).isEqualTo(mutant);
        decoded++;
      } catch (MalformedGrantException expected) {
        assertThat(expected.malformation()).as("seed %d", seed).isNotNull();
      } catch (RuntimeException bug) {
        throw new AssertionError(
            "seed " + seed + ", case " + i + ": " + HEX.formatHex(mutant), bug);
      }
    }
    assertThat(decoded).as("some mutants (in signatures) still decode, seed %d", seed).isPositive();
  }

  static CborMap envelope(CborMap grant, byte[] signature) {
    return CborMap.builder().put("grant", grant).put("signature", signature).build();
  }

  static CborMap with(CborMap m, String key, CborValue value) {
    List<CborMap.Entry> entries = new ArrayList<>(m.entries());
    entries.add(new CborMap.Entry(CborText.of(key), value));
    return CborMap.of(entries);
  }

  static CborMap without(CborMap m, String key) {
    List<CborMap.Entry> entries = new ArrayList<>(m.entries());
    entries.removeIf(e -> e.key().equals(CborText.of(key)));
    return CborMap.of(entries);
  }
}
