package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.id;
import static org.meshjava.receipt.TestReceipts.with;
import static org.meshjava.receipt.TestReceipts.without;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.Provenance;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CborArray;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborRule;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.receipt.ReceiptException.Reason;

/**
 * The signed core of §6.1 and §6.2: what it holds, what it drops, the derived figures, and a
 * verifier that refuses a core breaking any rule even when it is correctly signed (§3.3, §3.2.1).
 */
class SignedCoreTest {
  private static final HexFormat HEX = HexFormat.of();

  /** Every key a minimal generation receipt at genesis carries. */
  private static final Set<String> REQUIRED =
      Set.of(
          "mesh_receipt",
          "request_id",
          "backend",
          "recipe",
          "route",
          "tokens_in",
          "tokens_out",
          "tokens_accepted",
          "cache_hit_tokens",
          "spec_proposed",
          "spec_accepted",
          "fidelity_floor",
          "fidelity_met",
          "estimated_uj",
          "uj_per_accepted_token",
          "energy_provenance",
          "sequence",
          "nonce",
          "steward");

  private static MeshReceipt.Builder fullGeneration() {
    return TestReceipts.generationDraft()
        .grantId(Optional.of(id("grant")))
        .weights(Optional.of(new WeightsBinding(id("weights"), "bf16")))
        .fidelityReport(Optional.of(new FidelityReport(Fidelity.F3, Fidelity.F2)))
        .fidelityMet(true)
        .energy(Energy.measured(9_999, 12_345))
        .grantBreach(Optional.of(DenialLabel.CAVEAT_UNSATISFIED))
        .outputCommitment(Optional.of(id("commitment")))
        .chain(4, Optional.of(id("previous envelope")))
        .steward(TestReceipts.did(KEY));
  }

  private static Set<String> keys(CborMap core) {
    Set<String> keys = new TreeSet<>();
    for (CborMap.Entry e : core.entries()) {
      keys.add(((CborText) e.key()).value());
    }
    return keys;
  }

  // ---- what the core holds --------------------------------------------------------------------

  @Test
  void signedCore_holdsOnlyUnsignedIntegersTextAndTheNonceBytes_neverFloatsBooleansOrNulls() {
    List<MeshReceipt> receipts =
        List.of(
            TestReceipts.genesis(TestReceipts.generationDraft()),
            fullGeneration().build(),
            TestReceipts.genesis(DecisionReceiptTest.decisionDraft()));
    for (MeshReceipt r : receipts) {
      for (CborMap.Entry e : r.toSignedCore().entries()) {
        assertThat(e.key()).isInstanceOf(CborText.class);
        String key = ((CborText) e.key()).value();
        CborValue v = e.value();
        if (key.equals("nonce")) {
          assertThat(v)
              .isInstanceOfSatisfying(CborBytes.class, b -> assertThat(b.length()).isEqualTo(16));
        } else {
          assertThat(v).as(key).isInstanceOfAny(CborInt.class, CborText.class);
          if (v instanceof CborInt(long n)) {
            assertThat(n).as(key).isNotNegative();
          }
        }
      }
    }
  }

  @Test
  void signedCore_dropsEveryAbsentOptional() {
    MeshReceipt r = TestReceipts.genesis(TestReceipts.generationDraft());

    assertThat(keys(r.toSignedCore())).isEqualTo(new TreeSet<>(REQUIRED));
  }

  @Test
  void signedCore_ofAFullyPopulatedGeneration_carriesEachOptionalWithItsPair() {
    Set<String> expected = new TreeSet<>(REQUIRED);
    expected.addAll(
        List.of(
            "grant_id",
            "weights_digest",
            "precision",
            "fidelity_advertised",
            "fidelity_delivered",
            "measured_uj",
            "grant_breach",
            "output_commitment",
            "prev"));

    CborMap core = fullGeneration().build().toSignedCore();

    assertThat(keys(core)).isEqualTo(expected);
    assertThat(core.get("mesh_receipt")).contains(new CborText("mesh/1"));
    assertThat(core.get("request_id")).contains(new CborText(id("request").hex()));
    assertThat(core.get("weights_digest")).contains(new CborText(id("weights").hex()));
    assertThat(core.get("precision")).contains(new CborText("bf16"));
    assertThat(core.get("fidelity_advertised")).contains(CborInt.of(3));
    assertThat(core.get("fidelity_delivered")).contains(CborInt.of(2));
    assertThat(core.get("energy_provenance")).contains(new CborText("HwShunt"));
    assertThat(core.get("prev")).contains(new CborText(id("previous envelope").hex()));
    assertThat(core.get("sequence")).contains(CborInt.of(4));
  }

  @Test
  void fidelityMet_isEncodedAsUnsignedZeroOrOne() {
    CborMap met =
        TestReceipts.genesis(TestReceipts.generationDraft().fidelityMet(true)).toSignedCore();
    // Unmet needs a delivered level below the floor: without one, fidelity_met rests on the
    // admitted rating, which meets it (§3.2.1).
    CborMap unmet =
        TestReceipts.genesis(
                TestReceipts.generationDraft()
                    .fidelityFloor(Fidelity.F2)
                    .fidelityReport(Optional.of(new FidelityReport(Fidelity.F2, Fidelity.F1)))
                    .fidelityMet(false))
            .toSignedCore();

    assertThat(met.get("fidelity_met")).contains(CborInt.of(1));
    assertThat(unmet.get("fidelity_met")).contains(CborInt.of(0));
  }

  // ---- derived figures (§6.2) ----------------------------------------------------------------

  @Test
  void ujPerAcceptedToken_isEnergyFloorDividedByTokensAccepted() {
    long seed = 20261129L;
    Random random = new Random(seed);
    for (int i = 0; i < 500; i++) {
      long estimated = random.nextLong(0, 1L << 40);
      long accepted = random.nextLong(1, 1L << 20);
      boolean measured = random.nextBoolean();
      long measuredUj = random.nextLong(0, 1L << 40);
      Energy energy =
          measured ? Energy.measured(measuredUj, estimated) : Energy.estimated(estimated);
      MeshReceipt r =
          TestReceipts.genesis(
              TestReceipts.generationDraft()
                  .counters(new OutcomeCounters(accepted, accepted, accepted, 0, 0, 0))
                  .energy(energy));
      long expected = Math.floorDiv(measured ? measuredUj : estimated, accepted);

      assertThat(r.toSignedCore().get("uj_per_accepted_token"))
          .as("seed %d, case %d", seed, i)
          .contains(CborInt.of(expected));
    }
  }

  @Test
  void ujPerAcceptedToken_usesTheMeasurementWhenPresent_elseTheEstimate() {
    MeshReceipt estimated =
        TestReceipts.genesis(
            TestReceipts.generationDraft()
                .counters(new OutcomeCounters(1, 3, 3, 0, 0, 0))
                .energy(Energy.estimated(1000)));
    MeshReceipt measured =
        TestReceipts.genesis(
            TestReceipts.generationDraft()
                .counters(new OutcomeCounters(1, 3, 3, 0, 0, 0))
                .energy(Energy.measured(600, 1000)));

    assertThat(estimated.toSignedCore().get("uj_per_accepted_token")).contains(CborInt.of(333));
    assertThat(measured.toSignedCore().get("uj_per_accepted_token")).contains(CborInt.of(200));
  }

  @Test
  void ujPerAcceptedToken_whenNoTokenAccepted_isAbsent() {
    MeshReceipt r =
        TestReceipts.genesis(
            TestReceipts.generationDraft().counters(new OutcomeCounters(5, 4, 0, 0, 4, 0)));

    assertThat(r.ujPerAcceptedToken()).isEmpty();
    assertThat(r.toSignedCore().get("uj_per_accepted_token")).isEmpty();
  }

  // ---- measured iff HwShunt (§3.3) -----------------------------------------------------------

  @Test
  void energy_withTheWrongCoupling_cannotBeBuilt() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new Energy(OptionalLong.empty(), 5, Provenance.HwShunt));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new Energy(OptionalLong.of(4), 5, Provenance.Estimator));
  }

  @Test
  void measuredUj_isInTheCoreExactlyWhenTheEnergyHasIt() {
    for (Energy e :
        List.of(
            Energy.estimated(5),
            Energy.measured(4, 5),
            new Energy(OptionalLong.of(4), 5, Provenance.ModelBased),
            new Energy(OptionalLong.empty(), 5, Provenance.ModelBased))) {
      CborMap core = TestReceipts.genesis(TestReceipts.generationDraft().energy(e)).toSignedCore();

      assertThat(core.get("measured_uj").isPresent())
          .as(e.toString())
          .isEqualTo(e.measuredUj().isPresent());
      assertThat(core.get("energy_provenance")).contains(new CborText(e.provenance().name()));
      assertThat(core.get("estimated_uj")).contains(CborInt.of(5));
    }
  }

  // ---- a verifier refuses a correctly signed core that breaks a rule ----------------------------

  private static CborMap base() {
    return TestReceipts.genesis(TestReceipts.generationDraft()).toSignedCore();
  }

  private static Arguments refused(String name, UnaryOperator<CborMap> mutate, Reason reason) {
    return Arguments.of(name, mutate, reason);
  }

  private static Arguments accepted(String name, UnaryOperator<CborMap> mutate) {
    return Arguments.of(name, mutate, null);
  }

  private static CborMap fidelity(CborMap m, int floor, int advertised, int delivered, int met) {
    m = with(m, "fidelity_floor", CborInt.of(floor));
    m = with(m, "fidelity_advertised", CborInt.of(advertised));
    m = with(m, "fidelity_delivered", CborInt.of(delivered));
    return with(m, "fidelity_met", CborInt.of(met));
  }

  private static CborMap energy(CborMap m, String provenance, Long measured, long estimated) {
    m = with(m, "energy_provenance", new CborText(provenance));
    m = with(m, "estimated_uj", CborInt.of(estimated));
    m = measured == null ? without(m, "measured_uj") : with(m, "measured_uj", CborInt.of(measured));
    long accepted = ((CborInt) m.get("tokens_accepted").orElseThrow()).value();
    // Keep the wedge consistent, so only the coupling is at fault.
    return with(
        m,
        "uj_per_accepted_token",
        CborInt.of((measured == null ? estimated : measured) / accepted));
  }

  static Stream<Arguments> craftedCores() {
    String hex64 = id("x").hex();
    return Stream.of(
        accepted("the unmodified core", m -> m),
        accepted("ModelBased with a measurement", m -> energy(m, "ModelBased", 700L, 1000)),
        accepted("ModelBased without a measurement", m -> energy(m, "ModelBased", null, 1000)),
        accepted("HwShunt with a measurement", m -> energy(m, "HwShunt", 700L, 1000)),
        accepted("delivered below advertised, met follows", m -> fidelity(m, 1, 3, 1, 1)),
        accepted("delivered below the floor, unmet", m -> fidelity(m, 2, 3, 1, 0)),
        refused(
            "HwShunt without measured_uj",
            m -> energy(m, "HwShunt", null, 1000),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "Estimator with measured_uj",
            m -> energy(m, "Estimator", 700L, 1000),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "unknown key", m -> with(m, "colour", new CborText("blue")), Reason.MALFORMED_RECEIPT),
        refused(
            "integer key",
            m -> CborMap.of(append(m, new CborMap.Entry(CborInt.of(1), CborInt.of(1)))),
            Reason.MALFORMED_RECEIPT),
        refused(
            "counter as text",
            m -> with(m, "tokens_in", new CborText("5")),
            Reason.MALFORMED_RECEIPT),
        refused(
            "negative counter",
            m -> with(m, "tokens_in", CborInt.of(-1)),
            Reason.MALFORMED_RECEIPT),
        refused(
            "measured_uj as text",
            m ->
                with(
                    with(m, "energy_provenance", new CborText("HwShunt")),
                    "measured_uj",
                    new CborText("1")),
            Reason.MALFORMED_RECEIPT),
        refused("required key missing", m -> without(m, "backend"), Reason.MALFORMED_RECEIPT),
        refused(
            "other profile",
            m -> with(m, "mesh_receipt", new CborText("mesh/2")),
            Reason.MALFORMED_RECEIPT),
        refused(
            "unknown provenance",
            m -> with(m, "energy_provenance", new CborText("Measured")),
            Reason.MALFORMED_RECEIPT),
        refused(
            "fidelity_met 2",
            m -> with(m, "fidelity_met", CborInt.of(2)),
            Reason.MALFORMED_RECEIPT),
        refused(
            "fidelity_floor 5",
            m -> with(m, "fidelity_floor", CborInt.of(5)),
            Reason.MALFORMED_RECEIPT),
        refused(
            "request_id in uppercase hex",
            m ->
                with(
                    m,
                    "request_id",
                    new CborText(id("request").hex().toUpperCase(java.util.Locale.ROOT))),
            Reason.MALFORMED_RECEIPT),
        refused(
            "nonce of 15 bytes",
            m -> with(m, "nonce", CborBytes.of(new byte[15])),
            Reason.MALFORMED_RECEIPT),
        refused(
            "steward not a did:key",
            m -> with(m, "steward", new CborText("did:web:example.org")),
            Reason.MALFORMED_RECEIPT),
        refused(
            "wedge off by one",
            m -> with(m, "uj_per_accepted_token", CborInt.of(12_345 / 7 + 1)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "wedge missing", m -> without(m, "uj_per_accepted_token"), Reason.INCONSISTENT_RECEIPT),
        refused(
            "wedge with no token accepted",
            m -> with(m, "tokens_accepted", CborInt.of(0)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "weights_digest without precision",
            m -> with(m, "weights_digest", new CborText(hex64)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "precision without weights_digest",
            m -> with(m, "precision", new CborText("fp32")),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "fidelity_advertised without delivered",
            m -> with(m, "fidelity_advertised", CborInt.of(2)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "fidelity_delivered without advertised",
            m -> with(m, "fidelity_delivered", CborInt.of(2)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "met although delivered is below the floor",
            m -> fidelity(m, 2, 3, 1, 1),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "unmet although delivered meets the floor",
            m -> fidelity(m, 1, 3, 2, 0),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "delivered above advertised",
            m -> fidelity(m, 1, 2, 3, 1),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "prev at sequence 0",
            m -> with(m, "prev", new CborText(hex64)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "no prev after sequence 0",
            m -> with(m, "sequence", CborInt.of(1)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "one decision field alone",
            m -> with(m, "questions_answered", CborInt.of(1)),
            Reason.INCONSISTENT_RECEIPT),
        accepted(
            "spec_accepted equal to spec_proposed",
            m -> with(with(m, "spec_proposed", CborInt.of(4)), "spec_accepted", CborInt.of(4))),
        refused(
            "spec_accepted above spec_proposed",
            m -> with(with(m, "spec_proposed", CborInt.of(2)), "spec_accepted", CborInt.of(3)),
            Reason.INCONSISTENT_RECEIPT),
        refused(
            "grant_breach without grant_id",
            m -> with(m, "grant_breach", new CborText("caveat-unsatisfied")),
            Reason.INCONSISTENT_RECEIPT),
        accepted(
            "grant_breach budget-exhausted with grant_id",
            m ->
                with(
                    with(m, "grant_id", new CborText("a".repeat(64))),
                    "grant_breach",
                    new CborText("budget-exhausted"))),
        refused(
            "grant_breach naming no debit's breach",
            m ->
                with(
                    with(m, "grant_id", new CborText("a".repeat(64))),
                    "grant_breach",
                    new CborText("expired")),
            Reason.INCONSISTENT_RECEIPT));
  }

  private static List<CborMap.Entry> append(CborMap m, CborMap.Entry e) {
    List<CborMap.Entry> entries = new ArrayList<>(m.entries());
    entries.add(e);
    return entries;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("craftedCores")
  void open_ofACorrectlySignedCraftedCore_acceptsOrRefusesWithTheRightReason(
      String name, UnaryOperator<CborMap> mutate, Reason expected) {
    CborMap core = mutate.apply(base());
    Envelope envelope = TestReceipts.signCore(core, KEY);

    Throwable t = catchThrowable(() -> Jcr1.open(envelope));

    if (expected == null) {
      assertThat(t).as(name).isNull();
    } else {
      assertThat(t).as(name).isInstanceOf(ReceiptException.class);
      assertThat(((ReceiptException) t).reason())
          .as(name + ": " + t.getMessage())
          .isEqualTo(expected);
    }
  }

  @Test
  void open_whenCoreIsNotAMap_refusesAsMalformed() {
    Envelope envelope = TestReceipts.signCore(CborArray.of(CborInt.of(1)), KEY);

    Throwable t = catchThrowable(() -> Jcr1.open(envelope));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RECEIPT));
  }

  /** Replaces the encoded value of {@code fidelity_met} (0x01) with raw bytes. */
  private static byte[] withRawFidelityMet(String rawHex) {
    String core = HEX.formatHex(base().encode());
    String key =
        "6c" + HEX.formatHex("fidelity_met".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertThat(core).contains(key + "01");
    return HEX.parseHex(core.replace(key + "01", key + rawHex));
  }

  @Test
  void open_whenASignedCoreCarriesTrueNullOrAFloat_refusesAsNotCanonical() {
    for (String raw : List.of("f5", "f4", "f6", "f93c00", "fa3f800000")) {
      Envelope envelope = TestReceipts.signPayload(withRawFidelityMet(raw), KEY);

      Throwable t = catchThrowable(() -> Jcr1.open(envelope));

      assertThat(t)
          .as("value %s", raw)
          .isInstanceOfSatisfying(
              ReceiptException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.NOT_CANONICAL_CBOR);
                assertThat(e.getCause())
                    .isInstanceOfSatisfying(
                        CborDecodeException.class,
                        c -> assertThat(c.rule()).isEqualTo(CborRule.FORBIDDEN_SIMPLE));
              });
    }
  }

  @Test
  void decisionShape_onTheCore_isRefusedWithoutItsCompanions() {
    // A decision core that lost schema_tokens.
    CborMap core = TestReceipts.genesis(DecisionReceiptTest.decisionDraft()).toSignedCore();
    Envelope envelope = TestReceipts.signCore(without(core, "schema_tokens"), KEY);

    Throwable t = catchThrowable(() -> Jcr1.open(envelope));

    assertThat(t)
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.INCONSISTENT_RECEIPT));
  }

  @Test
  void receipt_withDecisionShape_hasTheDecisionKeysOnly() {
    CborMap core =
        TestReceipts.genesis(
                TestReceipts.generationDraft()
                    .counters(new OutcomeCounters(132, 0, 0, 0, 0, 0))
                    .decision(Optional.of(new DecisionShape(1, 2, 121))))
            .toSignedCore();

    assertThat(keys(core)).contains("questions_answered", "options_scored", "schema_tokens");
    assertThat(keys(core)).doesNotContain("uj_per_accepted_token");
  }
}
