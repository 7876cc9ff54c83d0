package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.jcp.Fixture.CALLER;
import static org.meshjava.jcp.Fixture.CALLER_DID;
import static org.meshjava.jcp.Fixture.ORG;
import static org.meshjava.jcp.Fixture.ORG_DID;
import static org.meshjava.jcp.Fixture.OUTSIDER;
import static org.meshjava.jcp.Fixture.OUTSIDER_DID;
import static org.meshjava.jcp.Fixture.REQUEST;
import static org.meshjava.jcp.Fixture.STEWARD_DID;
import static org.meshjava.jcp.Fixture.T0;
import static org.meshjava.jcp.Fixture.T_END;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborValue;

/**
 * Decoding with envelopes already decoded ({@link DecodedEnvelopes}) gives what decoding from
 * nothing gives, value for value and refusal for refusal; the memo stays bounded; and a gate whose
 * caches are warm still refuses a revoked or expired grant.
 */
class DecodedEnvelopesTest {
  private static final HexFormat HEX = HexFormat.of();

  @AfterEach
  void forget() {
    DecodedEnvelopes.clear();
  }

  /** What one decode gave: the presentation's encoding, or the refusal's type, field and words. */
  private static String outcome(byte[] bytes) {
    try {
      Presentation p = Presentation.decode(bytes);
      assertThat(p.encode()).isEqualTo(bytes);
      assertThat(p.chain().encode()).isEqualTo(p.chain().toCbor().encode());
      return "decoded " + HEX.formatHex(p.encode()) + " ids " + p.chain().ids();
    } catch (MalformedGrantException e) {
      return "refused " + e.malformation() + " at " + e.field() + ": " + e.getMessage();
    }
  }

  @Test
  void aWarmDecode_givesWhatAColdOneGives_forGeneratedAndMutatedPresentations() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    List<byte[]> valid = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      GrantChain chain = randomChain(random);
      for (int p = 0; p < 3; p++) {
        valid.add(Presentation.sign(CALLER, chain, REQUEST.id()).encode());
      }
    }
    List<byte[]> inputs = new ArrayList<>(valid);
    for (byte[] v : valid) {
      for (int m = 0; m < 8; m++) {
        inputs.add(mutant(v, random));
      }
    }
    List<String> cold = new ArrayList<>(inputs.size());
    for (byte[] in : inputs) {
      DecodedEnvelopes.clear();
      cold.add(outcome(in));
    }
    DecodedEnvelopes.clear();
    for (byte[] v : valid) {
      Presentation.decode(v);
    }
    int refused = 0;
    for (int i = 0; i < inputs.size(); i++) {
      String warm = outcome(inputs.get(i));
      assertThat(warm)
          .as("seed %d, input %d: %s", seed, i, HEX.formatHex(inputs.get(i)))
          .isEqualTo(cold.get(i));
      refused += warm.startsWith("refused") ? 1 : 0;
    }
    assertThat(refused).as("seed %d: mutants are refused too", seed).isPositive();
  }

  @Test
  void aChainPresentedAgain_reusesTheEnvelopesDecodedTheFirstTime() throws Exception {
    GrantChain chain = Fixture.twoLinkChain(1_000);
    Presentation first = Presentation.decode(Fixture.present(chain, REQUEST, 1).encode());
    Presentation second = Presentation.decode(Fixture.present(chain, REQUEST, 2).encode());
    for (int i = 0; i < chain.links().size(); i++) {
      assertThat(second.chain().links().get(i)).isSameAs(first.chain().links().get(i));
    }
  }

  /**
   * The two memos clear apart. After the links' memo clears, a link it reads again is a new value,
   * equal to the one held: that value is held in the old one's place, so the requests after it find
   * the link by identity instead of walking its decoded tree until the values' memo fills.
   */
  @Test
  void afterTheLinksMemoClears_theLinkReadAgainIsHeld_inPlaceOfTheEqualOldValue() throws Exception {
    GrantChain chain = Fixture.twoLinkChain(1_000);
    Presentation first = Presentation.decode(Fixture.present(chain, REQUEST, 1).encode());
    CborValue root = chain.root().toCbor();
    CborValue before = DecodedEnvelopes.heldValue(root);
    assertThat(before).as("held after the first decode").isNotNull();

    DecodedEnvelopes.STATEMENT_LINKS.clear();
    Presentation second = Presentation.decode(Fixture.present(chain, REQUEST, 2).encode());
    CborValue after = DecodedEnvelopes.heldValue(root);
    assertThat(after)
        .as("the link read again is held in place of the old value")
        .isEqualTo(before)
        .isNotSameAs(before);

    Presentation third = Presentation.decode(Fixture.present(chain, REQUEST, 3).encode());
    assertThat(DecodedEnvelopes.heldValue(root)).as("and stays held").isSameAs(after);
    for (int i = 0; i < chain.links().size(); i++) {
      assertThat(second.chain().links().get(i)).isSameAs(first.chain().links().get(i));
      assertThat(third.chain().links().get(i)).isSameAs(first.chain().links().get(i));
    }
  }

  /**
   * Hostile: a link whose bytes differ from a held link's only in the encoding of an equal value
   * (its map's count written in two bytes) is read in full and refused as a cold decode refuses it,
   * not taken as the held link.
   */
  @Test
  void aLinkEncodedAnotherWay_isNotTakenForTheHeldOne_andIsRefusedAsWhenCold() throws Exception {
    GrantChain chain = Fixture.twoLinkChain(1_000);
    byte[] presented = Fixture.present(chain, REQUEST, 1).encode();
    byte[] link = chain.root().encode();
    int at = indexOf(presented, link);
    assertThat(link[0]).as("a map of two: grant, signature").isEqualTo((byte) 0xA2);
    byte[] widened = new byte[presented.length + 1];
    System.arraycopy(presented, 0, widened, 0, at);
    widened[at] = (byte) 0xB8;
    widened[at + 1] = 2;
    System.arraycopy(presented, at + 1, widened, at + 2, presented.length - at - 1);
    String cold = outcome(widened);
    assertThat(cold).startsWith("refused CBOR");

    Presentation.decode(presented);
    assertThat(DecodedEnvelopes.STATEMENT_LINKS.size()).as("links held by bytes").isEqualTo(2);

    assertThat(outcome(widened)).isEqualTo(cold);
  }

  private static int indexOf(byte[] in, byte[] part) {
    for (int i = 0; i + part.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  @Test
  void theMemo_holdsAtMostItsLimit_andNoLargeEnvelope() throws Exception {
    for (int i = 0; i < DecodedEnvelopes.LIMIT + 10; i++) {
      SignedGrant.decode(unsigned(i, Resources.all()).encode());
      assertThat(DecodedEnvelopes.size()).isLessThanOrEqualTo(DecodedEnvelopes.LIMIT);
    }
    DecodedEnvelopes.clear();
    Set<ContentId> many = new LinkedHashSet<>();
    for (int i = 0; i < 40; i++) {
      many.add(ContentId.ofBytes(new byte[] {(byte) i}));
    }
    SignedGrant large = unsigned(0, Resources.only(many));
    assertThat(large.encode().length).isGreaterThan(DecodedEnvelopes.MAX_ENCODED);
    SignedGrant.decode(large.encode());
    assertThat(DecodedEnvelopes.size()).isZero();
  }

  /**
   * Regression: an envelope of under 2 KB made of one-byte items (empty maps in an unknown caveat,
   * decoded before any signature is checked) was kept, and 511 of them held about 60 MB of heap for
   * as long as the steward ran. One of more than {@link DecodedEnvelopes#MAX_ITEMS} items is
   * decoded (the same each time) and not kept; the largest envelope of real content that {@link
   * DecodedEnvelopes#MAX_ENCODED} lets in, a grant naming as many resources as fit, still is.
   */
  @Test
  void anEnvelopeOfManySmallItems_isNotKept_butOneOfAsManyResourcesAsFitIs() throws Exception {
    List<CborValue> empties = new ArrayList<>();
    for (int i = 0; i < 4 * DecodedEnvelopes.MAX_ITEMS; i++) {
      empties.add(CborMap.builder().build());
    }
    Caveat junk =
        Caveat.decode(
            CborMap.builder()
                .put(Caveat.KIND_KEY, "x-junk")
                .put("v", new CborArray(empties))
                .build()
                .encode());
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .budgetUj(1)
            .window(T0, T_END)
            .caveat(junk)
            .build();
    byte[] many = SignedGrant.of(g, new byte[SignedGrant.SIGNATURE_LENGTH]).encode();
    assertThat(many.length).isLessThanOrEqualTo(DecodedEnvelopes.MAX_ENCODED);

    SignedGrant first = SignedGrant.decode(many);
    SignedGrant again = SignedGrant.decode(many);

    assertThat(again).isEqualTo(first).isNotSameAs(first);
    assertThat(again.encode()).isEqualTo(many);
    assertThat(DecodedEnvelopes.size()).as("envelopes held").isZero();

    Set<ContentId> ids = new LinkedHashSet<>();
    SignedGrant fits = unsigned(0, Resources.all());
    for (int i = 0; ; i++) {
      ids.add(ContentId.ofBytes(new byte[] {(byte) i}));
      SignedGrant more = unsigned(0, Resources.only(ids));
      if (more.encode().length > DecodedEnvelopes.MAX_ENCODED) {
        break;
      }
      fits = more;
    }
    assertThat(SignedGrant.decode(fits.encode())).isSameAs(SignedGrant.decode(fits.encode()));
    assertThat(DecodedEnvelopes.size()).as("envelopes held").isEqualTo(1);
  }

  @Test
  void envelopesCraftedToShareAHashCode_areHeldOnce_andEachDecodesToItself() throws Exception {
    Grant grant = unsigned(0, Resources.all()).grant();
    int hash =
        CanonicalCbor.decode(SignedGrant.of(grant, collidingSignature(0)).encode()).hashCode();
    for (int n = 0; n < 64; n++) {
      byte[] signature = collidingSignature(n);
      byte[] encoded = SignedGrant.of(grant, signature).encode();
      assertThat(CanonicalCbor.decode(encoded).hashCode()).as("envelope %d", n).isEqualTo(hash);
      SignedGrant decoded = SignedGrant.decode(encoded);
      assertThat(decoded.signature()).isEqualTo(signature);
      assertThat(SignedGrant.decode(encoded)).isSameAs(decoded);
    }
    assertThat(DecodedEnvelopes.size())
        .as("envelopes sharing a hash code, each a comparison for every lookup of it")
        .isEqualTo(1);
  }

  /**
   * A signature whose bytes hash as the all-zero one's do ({@code Arrays.hashCode}): in each of
   * three pairs of bytes, the first raised by k and the second lowered by 31k.
   */
  private static byte[] collidingSignature(int n) {
    byte[] signature = new byte[SignedGrant.SIGNATURE_LENGTH];
    for (int pair = 0; pair < 3; pair++) {
      int k = (n >> (2 * pair)) & 3;
      signature[2 * pair] = (byte) k;
      signature[2 * pair + 1] = (byte) (-31 * k);
    }
    return signature;
  }

  @Test
  void concurrentDecodes_whileAFloodClearsTheMemo_eachGiveWhatAColdDecodeGives() throws Exception {
    List<byte[]> presentations = new ArrayList<>();
    for (int c = 0; c < 8; c++) {
      GrantChain chain = Fixture.twoLinkChain(1_000 + c);
      presentations.add(Fixture.present(chain, REQUEST, c).encode());
    }
    List<String> cold = new ArrayList<>();
    for (byte[] p : presentations) {
      DecodedEnvelopes.clear();
      cold.add(outcome(p));
    }
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      done.add(
          pool.submit(
              () -> {
                start.await();
                for (int i = 0; i < 3 * DecodedEnvelopes.LIMIT; i++) {
                  SignedGrant.decode(unsigned(i, Resources.all()).encode());
                }
                return null;
              }));
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int round = 0; round < 50; round++) {
                    for (int i = 0; i < presentations.size(); i++) {
                      assertThat(outcome(presentations.get(i))).isEqualTo(cold.get(i));
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : done) {
        f.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(DecodedEnvelopes.size()).isLessThanOrEqualTo(DecodedEnvelopes.LIMIT + threads + 1);
  }

  @Test
  void withEveryCacheWarm_aRevokedGrant_isStillRefused() throws Exception {
    GrantChain chain = Fixture.twoLinkChain(1_000_000);
    Revocations revocations = Revocations.none();
    Gate gate = Gate.create(STEWARD_DID, SpendLedger.inMemory(), revocations);
    gate.release(decideDecoded(gate, chain, 1, Fixture.NOW));
    revocations.revoke(chain.root().id(), Fixture.NOW);
    assertThatThrownBy(() -> decideDecoded(gate, chain, 2, Fixture.NOW))
        .isInstanceOfSatisfying(
            GrantRefusedException.class, e -> assertThat(e.label()).isEqualTo(DenialLabel.REVOKED));
  }

  @Test
  void withEveryCacheWarm_anExpiredGrant_isStillRefused() throws Exception {
    GrantChain chain = Fixture.twoLinkChain(1_000_000);
    Gate gate = Fixture.gate();
    gate.release(decideDecoded(gate, chain, 1, Fixture.NOW));
    assertThatThrownBy(() -> decideDecoded(gate, chain, 2, T_END))
        .isInstanceOfSatisfying(
            GrantRefusedException.class, e -> assertThat(e.label()).isEqualTo(DenialLabel.EXPIRED));
  }

  /** Decides a presentation of {@code chain} read from its bytes, as a steward receives it. */
  private static Authorisation decideDecoded(Gate gate, GrantChain chain, int nonce, Instant at)
      throws Exception {
    Presentation p = Presentation.decode(Fixture.present(chain, REQUEST, nonce).encode());
    return gate.decide(p, REQUEST, Optional.of(Fixture.WEIGHTS_A), at);
  }

  /** A grant from ORG to CALLER with an all-zero signature: decoding checks no signature. */
  private static SignedGrant unsigned(int budget, Resources resources) {
    Grant g =
        Grant.builder()
            .issuer(ORG_DID)
            .subject(CALLER_DID)
            .resources(resources)
            .budgetUj(budget)
            .window(T0, T_END)
            .build();
    return SignedGrant.of(g, new byte[SignedGrant.SIGNATURE_LENGTH]);
  }

  /** A chain of one to three links ending at CALLER to STEWARD, its fields drawn at random. */
  private static GrantChain randomChain(Random random) throws Exception {
    int links = 1 + random.nextInt(3);
    long budget = random.nextInt(5) == 0 ? Long.MAX_VALUE / 2 : 1 + random.nextInt(1_000_000);
    Instant end = T0.plusSeconds(1 + random.nextInt(100_000));
    if (links == 1) {
      return Jcp.issueRoot(CALLER, grant(random, CALLER_DID, STEWARD_DID, budget, end));
    }
    GrantChain chain =
        links == 2
            ? Jcp.issueRoot(ORG, grant(random, ORG_DID, CALLER_DID, budget, end))
            : Jcp.delegate(
                OUTSIDER,
                Jcp.issueRoot(ORG, grant(random, ORG_DID, OUTSIDER_DID, budget, end)),
                CALLER_DID,
                budget);
    return Jcp.delegate(CALLER, chain, STEWARD_DID, budget);
  }

  private static Grant grant(
      Random random,
      org.meshjava.core.identity.DidKey issuer,
      org.meshjava.core.identity.DidKey subject,
      long budget,
      Instant end) {
    Grant.Builder b =
        Grant.builder().issuer(issuer).subject(subject).budgetUj(budget).window(T0, end);
    if (random.nextBoolean()) {
      b.actions(random.nextBoolean() ? Set.of("infer") : Set.of("infer", "embed", "x.y/z"));
    }
    if (random.nextInt(3) == 0) {
      Set<ContentId> ids = new LinkedHashSet<>();
      ids.add(REQUEST.id());
      for (int i = random.nextInt(4); i > 0; i--) {
        ids.add(ContentId.ofBytes(new byte[] {(byte) random.nextInt()}));
      }
      b.resources(Resources.only(ids));
    }
    if (random.nextBoolean()) {
      b.caveat(ModelIn.of(Fixture.WEIGHTS_A, Fixture.WEIGHTS_B));
    }
    if (random.nextBoolean()) {
      b.caveat(new MaxCostUj(random.nextInt(1_000_000)));
    }
    return b.build();
  }

  /** Random edits to a valid encoding: bytes replaced, sometimes cut short or grown. */
  private static byte[] mutant(byte[] valid, Random random) {
    byte[] m = valid.clone();
    for (int e = 1 + random.nextInt(3); e > 0; e--) {
      m[random.nextInt(m.length)] = (byte) random.nextInt(256);
    }
    return switch (random.nextInt(8)) {
      case 0 -> Arrays.copyOf(m, random.nextInt(m.length));
      case 1 -> Arrays.copyOf(m, m.length + 1 + random.nextInt(4));
      default -> m;
    };
  }
}
