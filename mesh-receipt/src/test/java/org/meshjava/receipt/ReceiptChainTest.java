package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.receipt.TestReceipts.KEY;
import static org.meshjava.receipt.TestReceipts.OTHER_KEY;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.receipt.ReceiptException.Reason;
import org.meshjava.receipt.internal.ReceiptLog;

/** Chain verification (§6.3): any alteration, reordering, loss or repeat is found, at its index. */
class ReceiptChainTest {
  private static final int LENGTH = 6;

  private List<SealedReceipt> sealed;
  private List<Envelope> chain;

  @BeforeEach
  void sealAChain() {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    sealed = new ArrayList<>();
    for (int i = 0; i < LENGTH; i++) {
      sealed.add(
          log.append(
              TestReceipts.generationDraft().counters(new OutcomeCounters(i, 8, 7, 0, 0, 0))));
    }
    chain = sealed.stream().map(SealedReceipt::envelope).toList();
  }

  private static ReceiptException refusal(List<Envelope> envelopes) {
    Throwable t = catchThrowable(() -> ReceiptChain.verifyFromGenesis(envelopes));
    assertThat(t).isInstanceOf(ReceiptException.class);
    return (ReceiptException) t;
  }

  private static void assertBrokenAt(List<Envelope> envelopes, int index) {
    ReceiptException e = refusal(envelopes);
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.BROKEN_CHAIN);
    assertThat(e.index()).as(e.getMessage()).hasValue(index);
  }

  @Test
  void verifyFromGenesis_ofAnUntouchedChain_returnsEveryReceiptInOrder() throws Exception {
    List<SealedReceipt> verified = ReceiptChain.verifyFromGenesis(chain);

    assertThat(verified).containsExactlyElementsOf(sealed);
  }

  @Test
  void aVerifier_takesTheChainOneEnvelopeAtATime_holdingOnlyItsEnds() throws Exception {
    ReceiptChain.Verifier v = ReceiptChain.Verifier.fromGenesis();
    assertThat(v.first()).isEmpty();
    for (int i = 0; i < LENGTH; i++) {
      assertThat(v.accept(chain.get(i))).isEqualTo(sealed.get(i));
    }
    assertThat(v.count()).isEqualTo(LENGTH);
    assertThat(v.first()).contains(sealed.getFirst());
    assertThat(v.last()).contains(sealed.getLast());
  }

  @Test
  void aVerifier_refusesABrokenLink_atItsIndex_andStaysWhereItWas() throws Exception {
    ReceiptChain.Verifier v = ReceiptChain.Verifier.segment();
    v.accept(chain.get(1));
    Throwable t = catchThrowable(() -> v.accept(chain.get(3)));
    assertThat(t).isInstanceOf(ReceiptException.class);
    assertThat(((ReceiptException) t).reason()).isEqualTo(Reason.BROKEN_CHAIN);
    assertThat(((ReceiptException) t).index()).hasValue(1);
    assertThat(v.count()).isEqualTo(1);
    assertThat(v.accept(chain.get(2))).isEqualTo(sealed.get(2));
    // From genesis, the first must be sequence 0.
    Throwable g = catchThrowable(() -> ReceiptChain.Verifier.fromGenesis().accept(chain.get(1)));
    assertThat(((ReceiptException) g).reason()).isEqualTo(Reason.BROKEN_CHAIN);
  }

  @Test
  void verify_ofAnEmptyList_isEmpty() throws Exception {
    assertThat(ReceiptChain.verifyFromGenesis(List.of())).isEmpty();
    assertThat(ReceiptChain.verifySegment(List.of())).isEmpty();
  }

  @Test
  void verifyFromGenesis_whenAnyEnvelopeHasAByteChanged_reportsThatEnvelopesIndex() {
    for (int i = 0; i < LENGTH; i++) {
      List<Envelope> altered = new ArrayList<>(chain);
      byte[] bytes = chain.get(i).bytes();
      bytes[bytes.length / 2] ^= 0x10;
      altered.set(i, Envelope.of(bytes));

      ReceiptException e = refusal(altered);

      assertThat(e.index()).as("altered envelope %d: %s", i, e.getMessage()).hasValue(i);
      assertThat(e.reason()).isNotEqualTo(Reason.BROKEN_CHAIN);
      // The index and reason are said once: "envelope i: REASON: detail".
      assertThat(e.getMessage())
          .startsWith("envelope " + i + ": " + e.reason() + ": ")
          .doesNotContain(e.reason() + ": " + e.reason());
    }
  }

  @Test
  void verifyFromGenesis_whenAReceiptIsResealedWithOtherContent_breaksTheLinkFromTheNext()
      throws Exception {
    for (int i = 0; i < LENGTH - 1; i++) {
      // The steward itself rewrites receipt i: it still opens, but the next prev no longer matches.
      MeshReceipt rewritten =
          sealed.get(i).receipt().toBuilder()
              .counters(new OutcomeCounters(99, 8, 7, 0, 0, 0))
              .build();
      Envelope forged = Jcr1.seal(rewritten, KEY).envelope();
      assertThat(Jcr1.open(forged).receipt()).isEqualTo(rewritten);
      List<Envelope> altered = new ArrayList<>(chain);
      altered.set(i, forged);

      assertBrokenAt(altered, i + 1);
    }
  }

  @Test
  void verifyFromGenesis_whenTwoEnvelopesAreSwapped_reportsTheFirstOutOfPlace() {
    for (int i = 0; i < LENGTH - 1; i++) {
      List<Envelope> swapped = new ArrayList<>(chain);
      swapped.set(i, chain.get(i + 1));
      swapped.set(i + 1, chain.get(i));

      assertBrokenAt(swapped, i);
    }
  }

  @Test
  void verifyFromGenesis_whenAnEnvelopeIsDropped_reportsWhereTheGapIs() {
    for (int i = 0; i < LENGTH; i++) {
      List<Envelope> dropped = new ArrayList<>(chain);
      dropped.remove(i);

      if (i == LENGTH - 1) {
        // Dropping the tail leaves a shorter chain that is still whole; only a head can tell.
        assertThat(catchThrowable(() -> ReceiptChain.verifyFromGenesis(dropped))).isNull();
      } else {
        assertBrokenAt(dropped, i);
      }
    }
  }

  @Test
  void verifyFromGenesis_whenAnEnvelopeIsDuplicated_reportsTheRepeat() {
    for (int i = 0; i < LENGTH; i++) {
      List<Envelope> duplicated = new ArrayList<>(chain);
      duplicated.add(i + 1, chain.get(i));

      assertBrokenAt(duplicated, i + 1);
    }
  }

  @Test
  void verifyFromGenesis_whenTheFirstIsNotSequenceZero_refuses_butASegmentMayStartThere()
      throws Exception {
    List<Envelope> tail = chain.subList(2, LENGTH);

    assertBrokenAt(tail, 0);
    assertThat(ReceiptChain.verifySegment(tail)).hasSize(LENGTH - 2);
  }

  @Test
  void verifyFromGenesis_whenTheSequenceSkipsThoughPrevLinks_refusesAtTheSkip() {
    // A log resumed with a head that skips two sequences but names the right previous envelope.
    SealedReceipt last = sealed.get(LENGTH - 1);
    ReceiptLog skipping =
        ReceiptLog.resume(
            KEY,
            new ChainHead(
                last.receipt().sequence() + 3, java.util.Optional.of(last.envelope().id())));
    List<Envelope> gapped = new ArrayList<>(chain);
    gapped.add(skipping.append(TestReceipts.generationDraft()).envelope());

    assertBrokenAt(gapped, LENGTH);
  }

  @Test
  void verifyFromGenesis_whenAnotherStewardContinuesTheChain_refusesAtItsEnvelope() {
    // OTHER_KEY's log resumes from KEY's head: sequence and prev both line up, only the signer
    // differs.
    ReceiptLog intruder = ReceiptLog.resume(OTHER_KEY, ChainHead.after(sealed.get(LENGTH - 1)));
    List<Envelope> mixed = new ArrayList<>(chain);
    mixed.add(intruder.append(TestReceipts.generationDraft()).envelope());

    assertBrokenAt(mixed, LENGTH);
  }
}
