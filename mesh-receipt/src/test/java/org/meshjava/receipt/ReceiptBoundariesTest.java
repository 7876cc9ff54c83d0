package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.OTHER_KEY;
import static org.meshjava.receipt.TestReceipts.did;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.receipt.internal.CoseSign1;
import org.meshjava.receipt.internal.ReceiptLog;

/**
 * Edges of the receipt model, the envelope and the chain that mutation testing (issue 21 item 4)
 * found unchecked: the u32 ceiling of the counters, the names a receipt refuses, the genesis head,
 * COSE_Sign1 and envelope equality, and a log shared between threads.
 */
class ReceiptBoundariesTest {
  private static final long U32_MAX = 0xFFFF_FFFFL;

  @Test
  void counters_atTheU32Ceiling_sealAndOpen() throws Exception {
    MeshReceipt receipt =
        TestReceipts.genesis(
            TestReceipts.generationDraft()
                .counters(
                    new OutcomeCounters(U32_MAX, U32_MAX, U32_MAX, U32_MAX, U32_MAX, U32_MAX)));
    SealedReceipt opened = Jcr1.open(Jcr1.seal(receipt, KEY).envelope().bytes());
    assertThat(opened.receipt()).isEqualTo(receipt);
    assertThat(opened.receipt().counters().tokensIn()).isEqualTo(U32_MAX);
  }

  @Test
  void counters_pastTheU32Ceiling_orNegative_areRefused() {
    for (int which = 0; which < 6; which++) {
      for (long bad : new long[] {U32_MAX + 1, -1}) {
        long[] c = {1, 1, 1, 1, 1, 1};
        c[which] = bad;
        assertThatThrownBy(
                () ->
                    TestReceipts.genesis(
                        TestReceipts.generationDraft()
                            .counters(new OutcomeCounters(c[0], c[1], c[2], c[3], c[4], c[5]))))
            .as("counter %d = %d", which, bad)
            .isInstanceOf(IllegalArgumentException.class);
      }
    }
  }

  @Test
  void names_whenEmptyOrMultiLine_areRefused() {
    for (String bad : new String[] {"", "two\nlines", "cr\r"}) {
      assertThatThrownBy(() -> TestReceipts.genesis(TestReceipts.generationDraft().backend(bad)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> TestReceipts.genesis(TestReceipts.generationDraft().recipe(bad)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> TestReceipts.genesis(TestReceipts.generationDraft().route(bad)))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(
              () ->
                  TestReceipts.genesis(
                      TestReceipts.generationDraft()
                          .grantId(Optional.of(TestReceipts.id("grant")))
                          .grantBreach(Optional.of(DenialLabel.fromWire(bad)))))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void grantBreach_whenALabelNoDebitBreaksAGrantWith_isRefusedNamingIt() {
    for (DenialLabel label : DenialLabel.values()) {
      MeshReceipt.Builder draft =
          TestReceipts.generationDraft()
              .grantId(Optional.of(TestReceipts.id("grant")))
              .grantBreach(Optional.of(label));
      if (label == DenialLabel.CAVEAT_UNSATISFIED || label == DenialLabel.BUDGET_EXHAUSTED) {
        assertThat(TestReceipts.genesis(draft).grantBreach()).contains(label);
      } else {
        assertThatThrownBy(() -> TestReceipts.genesis(draft))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("'" + label.wire() + "' is not a debit's breach");
      }
    }
  }

  @Test
  void isDecision_followsTheDecisionFields() {
    assertThat(TestReceipts.genesis(TestReceipts.generationDraft()).isDecision()).isFalse();
    MeshReceipt decision =
        TestReceipts.genesis(
            TestReceipts.generationDraft().decision(Optional.of(new DecisionShape(3, 14, 121))));
    assertThat(decision.isDecision()).isTrue();
  }

  @Test
  void chainHead_atSequenceZero_isTheGenesisHead() {
    assertThat(new ChainHead(0, Optional.empty())).isEqualTo(ChainHead.GENESIS);
    assertThatThrownBy(() -> new ChainHead(-1, Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ChainHead(0, Optional.of(TestReceipts.id("x"))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void coseSign1_isEqualExactlyWhenEveryPartIs() throws Exception {
    byte[] header = Jcr1.protectedHeader(did(KEY));
    CborMap empty = CborMap.of(List.of());
    byte[] payload = {1, 2, 3};
    CoseSign1 base = CoseSign1.sign(header, empty, payload, KEY);
    CoseSign1 again = CoseSign1.decode(base.encode());
    assertThat(again).isEqualTo(base).hasSameHashCodeAs(base);
    assertThat(base.signature())
        .hasSize(64)
        .isEqualTo(KEY.sign(CoseSign1.sigStructure(header, payload)));
    assertThat(CoseSign1.sign(Jcr1.protectedHeader(did(OTHER_KEY)), empty, payload, KEY))
        .isNotEqualTo(base);
    assertThat(
            CoseSign1.sign(header, CborMap.builder().put(5, CborInt.of(1)).build(), payload, KEY))
        .isNotEqualTo(base);
    assertThat(CoseSign1.sign(header, empty, new byte[] {1, 2, 4}, KEY)).isNotEqualTo(base);
    assertThat(CoseSign1.sign(header, empty, payload, OTHER_KEY)).isNotEqualTo(base);
    assertThat(base).isNotEqualTo(Envelope.of(base.encode()));
  }

  @Test
  void envelope_hexLengthAndEquality() throws Exception {
    Envelope e = TestReceipts.sealGenesis(TestReceipts.generationDraft()).envelope();
    assertThat(e.length()).isEqualTo(e.bytes().length).isPositive();
    assertThat(e.hex()).hasSize(2 * e.length()).isLowerCase();
    Envelope back = Envelope.fromHex(" " + e.hex() + "\n");
    // Regression: upper case was taken here while ids and chains refused it (LowercaseHex).
    String upper = e.hex().toUpperCase(java.util.Locale.ROOT);
    assertThatThrownBy(() -> Envelope.fromHex(upper))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not lowercase hex: upper-case '");
    assertThat(back).isEqualTo(e).hasSameHashCodeAs(e);
    assertThat(back.id()).isEqualTo(e.id());
    assertThat(Jcr1.open(back).envelope()).isEqualTo(e);
    byte[] other = e.bytes();
    other[other.length - 1] ^= 1;
    assertThat(Envelope.of(other)).isNotEqualTo(e);
    assertThat(e).isNotEqualTo(e.bytes());
  }

  @Test
  void chain_whenALinkFailsToOpen_reportsTheOpenersReasonAndDetailAtItsIndex() throws Exception {
    SealedReceipt first = TestReceipts.sealGenesis(TestReceipts.generationDraft());
    byte[] broken = first.envelope().bytes();
    broken[broken.length - 1] ^= 1; // the signature's last byte
    ReceiptException alone = catchThrowableOfType(ReceiptException.class, () -> Jcr1.open(broken));
    ReceiptException inChain =
        catchThrowableOfType(
            ReceiptException.class,
            () -> ReceiptChain.verifySegment(List.of(first.envelope(), Envelope.of(broken))));
    assertThat(inChain.reason())
        .isEqualTo(alone.reason())
        .isEqualTo(ReceiptException.Reason.BAD_SIGNATURE);
    assertThat(inChain.index()).hasValue(1);
    assertThat(inChain.detail()).isNotEmpty().isEqualTo(alone.detail());
  }

  @Test
  void receiptLog_isUsableFromAnotherThread_afterHeadAndAppend() throws Exception {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    assertThat(log.steward()).isEqualTo(did(KEY));
    log.append(TestReceipts.generationDraft());
    assertThat(log.head().nextSequence()).isEqualTo(1);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      SealedReceipt second =
          other.submit(() -> log.append(TestReceipts.generationDraft())).get(30, TimeUnit.SECONDS);
      assertThat(second.receipt().sequence()).isEqualTo(1);
      assertThat(other.submit(log::head).get(30, TimeUnit.SECONDS).nextSequence()).isEqualTo(2);
    } finally {
      other.shutdownNow();
    }
    assertThat(log.append(TestReceipts.generationDraft()).receipt().sequence()).isEqualTo(2);
  }

  @Test
  void fromSignedCore_readsBackWhatToSignedCoreWrote() throws Exception {
    MeshReceipt receipt = TestReceipts.genesis(TestReceipts.generationDraft());
    assertThat(MeshReceipt.fromSignedCore(receipt.toSignedCore())).isEqualTo(receipt);
    assertThatThrownBy(() -> MeshReceipt.fromSignedCore(CborInt.of(1)))
        .isInstanceOfSatisfying(
            ReceiptException.class,
            e -> assertThat(e.reason()).isEqualTo(ReceiptException.Reason.MALFORMED_RECEIPT));
  }
}
