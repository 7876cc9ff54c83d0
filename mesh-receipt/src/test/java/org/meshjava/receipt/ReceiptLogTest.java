package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.meshjava.receipt.TestReceipts.KEY;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.Blake3;
import org.meshjava.receipt.internal.ReceiptLog;

/** The steward's receipt log (§6.3): stamping, linking, resuming, and not advancing on failure. */
class ReceiptLogTest {

  private static ContentId blake3Of(Envelope e) {
    return ContentId.fromDigest(Blake3.hash(e.bytes()));
  }

  @Test
  void append_fromGenesis_stampsSequenceFromZeroAndLinksEachToThePreviousEnvelopeHash()
      throws Exception {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    List<SealedReceipt> sealed = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      sealed.add(log.append(TestReceipts.generationDraft()));
    }

    assertThat(sealed.get(0).receipt().sequence()).isZero();
    assertThat(sealed.get(0).receipt().prev()).isEmpty();
    assertThat(sealed.get(0).receipt().toSignedCore().get("prev")).isEmpty();
    for (int i = 1; i < sealed.size(); i++) {
      assertThat(sealed.get(i).receipt().sequence()).isEqualTo(i);
      assertThat(sealed.get(i).receipt().prev()).contains(blake3Of(sealed.get(i - 1).envelope()));
    }
    assertThat(log.head())
        .isEqualTo(new ChainHead(4, Optional.of(blake3Of(sealed.get(3).envelope()))));
    assertThat(
            ReceiptChain.verifyFromGenesis(sealed.stream().map(SealedReceipt::envelope).toList()))
        .hasSize(4);
  }

  @Test
  void append_stampsTheLogsOwnIdentityAsSteward() throws Exception {
    SealedReceipt sealed = ReceiptLog.genesis(KEY).append(TestReceipts.generationDraft());

    assertThat(sealed.receipt().steward()).isEqualTo(TestReceipts.did(KEY));
    assertThat(Jcr1.open(sealed.envelope()).receipt()).isEqualTo(sealed.receipt());
  }

  @Test
  void resume_continuesFromTheHead_soTheJoinedChainVerifiesFromGenesis() throws Exception {
    ReceiptLog first = ReceiptLog.genesis(KEY);
    List<Envelope> chain = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      chain.add(first.append(TestReceipts.generationDraft()).envelope());
    }

    ReceiptLog restarted = ReceiptLog.resume(KEY, first.head());
    SealedReceipt next = restarted.append(TestReceipts.generationDraft());
    chain.add(next.envelope());
    chain.add(restarted.append(TestReceipts.generationDraft()).envelope());

    assertThat(next.receipt().sequence()).isEqualTo(3);
    assertThat(next.receipt().prev()).contains(blake3Of(chain.get(2)));
    assertThat(ReceiptChain.verifyFromGenesis(chain)).hasSize(5);
  }

  @Test
  void append_whenTheRecorderThrows_leavesTheHeadWhereItWas() {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    log.append(TestReceipts.generationDraft());
    ChainHead before = log.head();

    assertThatIOException()
        .isThrownBy(
            () ->
                log.append(
                    TestReceipts.generationDraft(),
                    receipt -> {
                      throw new IOException("disk full");
                    }));

    assertThat(log.head()).isEqualTo(before);
    SealedReceipt next = log.append(TestReceipts.generationDraft());
    assertThat(next.receipt().sequence()).isEqualTo(1);
    assertThat(next.receipt().prev()).isEqualTo(before.prev());
  }

  @Test
  void append_recordsTheSealedReceiptBeforeReturningIt() {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    List<SealedReceipt> recorded = new ArrayList<>();

    SealedReceipt sealed = log.append(TestReceipts.generationDraft(), recorded::add).sealed();

    assertThat(recorded).containsExactly(sealed);
  }

  @Test
  void append_fromManyThreads_formsOneUnbrokenChain() throws Exception {
    ReceiptLog log = ReceiptLog.genesis(KEY);
    int threads = 16;
    int each = 40;
    List<SealedReceipt> all = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < each; i++) {
                    all.add(log.append(TestReceipts.generationDraft()));
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    List<SealedReceipt> ordered =
        all.stream().sorted(Comparator.comparingLong(s -> s.receipt().sequence())).toList();
    assertThat(ordered.stream().map(s -> s.receipt().sequence()).toList())
        .containsExactlyElementsOf(
            java.util.stream.LongStream.range(0, threads * each).boxed().toList());
    assertThat(
            ReceiptChain.verifyFromGenesis(ordered.stream().map(SealedReceipt::envelope).toList()))
        .hasSize(threads * each);
  }
}
