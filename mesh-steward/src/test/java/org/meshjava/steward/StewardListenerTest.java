package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.DebitResult;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.steward.observe.JournalWrite;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * The observation hook: what a listener is told, in which order, and that it cannot break a serve.
 */
class StewardListenerTest {
  @TempDir Path dir;

  /** Writes down every call, in order. */
  static final class Recording implements StewardListener {
    final List<String> events = Collections.synchronizedList(new ArrayList<>());
    final List<JournalWrite> writes = Collections.synchronizedList(new ArrayList<>());

    @Override
    public ServeObserver serveStarted(ServeStarted serve) {
      events.add("start granted=" + serve.granted());
      return new ServeObserver() {
        @Override
        public void phase(ServePhase phase) {
          events.add(phase.name());
        }

        @Override
        public void served(ServeResult result) {
          events.add("served " + result.receipt().sequence());
        }

        @Override
        public void refused(ServeException refusal) {
          events.add("refused " + refusal.reason());
        }

        @Override
        public void failed(Throwable failure) {
          events.add("failed " + failure.getMessage());
        }
      };
    }

    @Override
    public void debited(DebitResult debit) {
      events.add("debited " + debit.debitedUj());
    }

    @Override
    public void journalWritten(JournalWrite write) {
      events.add("journal " + write.step());
      writes.add(write);
    }

    List<String> serveEvents() {
      return events.stream().filter(e -> !e.startsWith("journal")).toList();
    }
  }

  /** Throws from every method, an Error from some. */
  static final class Throwing implements StewardListener {
    @Override
    public ServeObserver serveStarted(ServeStarted serve) {
      return new ServeObserver() {
        @Override
        public void phase(ServePhase phase) {
          throw new IllegalStateException("phase");
        }

        @Override
        public void served(ServeResult result) {
          throw new AssertionError("served");
        }

        @Override
        public void refused(ServeException refusal) {
          throw new IllegalStateException("refused");
        }
      };
    }

    @Override
    public void debited(DebitResult debit) {
      throw new IllegalStateException("debited");
    }

    @Override
    public void journalWritten(JournalWrite write) {
      throw new IllegalStateException("journal");
    }
  }

  @Test
  void grantedServe_reportsEachPhaseInOrder_theDebit_thenServed() throws Exception {
    GrantFixture f = new GrantFixture();
    Recording rec = new Recording();
    try (Steward s = f.steward(new DurableMemoryJournal()).listener(rec).build()) {
      GrantChain chain = f.chain(1_000_000);
      ServeRequest r = GrantFixture.request("hello", 4, 100_000);
      ServeResult result = s.serve(r, GrantFixture.payload(r), f.present(chain, r));
      assertThat(rec.serveEvents())
          .containsExactly(
              "start granted=true",
              "ROUTE",
              "AUTHORISE",
              "METER",
              "debited " + result.receipt().energy().uj(),
              "SEAL",
              "served 0");
      // Authorised, debited and sealed records: each appended, and awaited where a serve waits.
      assertThat(rec.events).contains("journal APPEND", "journal SYNC");
    }
  }

  @Test
  void refusals_areReportedWithTheirReason_afterThePhaseTheyStoppedIn() throws Exception {
    GrantFixture f = new GrantFixture();
    Recording rec = new Recording();
    try (Steward s = f.steward(new DurableMemoryJournal()).listener(rec).build()) {
      ServeRequest unroutable = GrantFixture.request("x", 4, 100_000).withModel("nope");
      catchThrowableOfType(
          ServeException.class, () -> s.serve(unroutable, GrantFixture.payload(unroutable)));
      assertThat(rec.serveEvents())
          .containsExactly("start granted=false", "ROUTE", "refused NO_ADMISSIBLE_BACKEND");

      rec.events.clear();
      GrantChain chain = f.chain(1_000_000);
      ServeRequest r = GrantFixture.request("hello", 4, 100_000);
      Presentation p = f.present(chain, r);
      s.serve(r, GrantFixture.payload(r), p);
      rec.events.clear();
      GrantDeniedException spent =
          catchThrowableOfType(
              GrantDeniedException.class, () -> s.serve(r, GrantFixture.payload(r), p));
      assertThat(spent.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT);
      assertThat(rec.serveEvents())
          .containsExactly("start granted=true", "ROUTE", "AUTHORISE", "refused GRANT_REFUSED");
    }
  }

  @Test
  void aListenerThatThrowsEverywhere_neverBreaksAServe_andTheNextListenerStillHearsAll()
      throws Exception {
    GrantFixture f = new GrantFixture();
    Recording rec = new Recording();
    try (Steward s =
        f.steward(new DurableMemoryJournal()).listener(new Throwing()).listener(rec).build()) {
      GrantChain chain = f.chain(1_000_000);
      ServeRequest r = GrantFixture.request("hello", 4, 100_000);
      ServeResult result = s.serve(r, GrantFixture.payload(r), f.present(chain, r));
      assertThat(result.receipt().sequence()).isZero();
      assertThat(rec.serveEvents()).contains("SEAL", "served 0");
      ServeRequest unroutable = r.withModel("nope");
      ServeException e =
          catchThrowableOfType(
              ServeException.class, () -> s.serve(unroutable, GrantFixture.payload(unroutable)));
      assertThat(e.reason()).isEqualTo(ServeException.Reason.NO_ADMISSIBLE_BACKEND);
      assertThat(rec.serveEvents()).endsWith("refused NO_ADMISSIBLE_BACKEND");
    }
  }

  /**
   * A serve ending in an unchecked throwable is told to every observer, past one that throws: the
   * metrics count such a serve as failed from this call alone.
   */
  @Test
  void aServesUncheckedFailure_reachesEveryObserver_pastOneThatThrows() {
    Recording rec = new Recording();
    StewardListener throwingOnFailed =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            return new ServeObserver() {
              @Override
              public void failed(Throwable failure) {
                throw new IllegalStateException("observer");
              }
            };
          }
        };
    GuardedListener guarded = new GuardedListener(List.of(throwingOnFailed, rec));
    ServeObserver observer =
        guarded.serveStarted(new ServeStarted(GrantFixture.request("x", 4, 100_000), false, false));
    observer.failed(new IllegalStateException("bug"));
    assertThat(rec.events).containsExactly("start granted=false", "failed bug");
  }

  /**
   * Each journal write's reported duration is the time its step took: at least the pause a slow
   * journal makes in it, and no more than the whole serve around it.
   */
  @Test
  void journalWrites_reportTheTimeEachStepTook() throws Exception {
    GrantFixture f = new GrantFixture();
    Recording rec = new Recording();
    long began = System.nanoTime();
    long took;
    try (Steward s =
        f.steward(new PausingJournal(new DurableMemoryJournal())).listener(rec).build()) {
      ServeRequest r = GrantFixture.request("hello", 4, 100_000);
      s.serve(r, GrantFixture.payload(r));
      took = System.nanoTime() - began;
    }
    assertThat(rec.writes)
        .extracting(JournalWrite::step)
        .contains(JournalWrite.Step.APPEND, JournalWrite.Step.SYNC);
    assertThat(rec.writes)
        .allSatisfy(
            w ->
                assertThat(w.nanos())
                    .as(w.toString())
                    .isBetween(PausingJournal.PAUSE.toNanos(), took));
  }

  /** Pauses in every append and every wait for one. */
  private static final class PausingJournal extends ForwardingJournal {
    static final Duration PAUSE = Duration.ofMillis(2);

    PausingJournal(Journal journal) {
      super(journal);
    }

    @Override
    public Pending enqueue(JournalEntry entry) throws JournalException {
      pause();
      Pending p = delegate().enqueue(entry);
      return Pendings.awaitedBy(
          p,
          () -> {
            pause();
            p.await();
          });
    }

    private static void pause() {
      try {
        Thread.sleep(PAUSE);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void aListenerWhoseServeStartedThrows_isSkippedForThatServe() throws Exception {
    GrantFixture f = new GrantFixture();
    StewardListener broken =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            throw new IllegalStateException("broken");
          }
        };
    try (Steward s = f.steward(new DurableMemoryJournal()).listener(broken).build()) {
      ServeRequest r = GrantFixture.request("hello", 4, 100_000);
      assertThat(s.serve(r, GrantFixture.payload(r)).receipt().sequence()).isZero();
    }
  }

  @Test
  void readiness_ofAFileJournal_isWritableAndLocked_untilClosed() throws Exception {
    GrantFixture f = new GrantFixture();
    Steward s = f.steward(FileJournal.open(dir.resolve("j.journal"))).build();
    Readiness ready = s.readiness();
    assertThat(ready.ready()).isTrue();
    assertThat(ready.journal().durable()).isTrue();
    assertThat(ready.journal().locked()).isTrue();
    assertThat(ready.journal().writable()).isTrue();
    assertThat(ready.grants().honoured()).isTrue();
    assertThat(ready.meter().estimatorOnly()).isTrue();
    assertThat(ready.head().nextSequence()).isZero();
    s.close();
    Readiness closed = s.readiness();
    assertThat(closed.ready()).isFalse();
    assertThat(closed.journal().locked()).isFalse();
    assertThat(closed.journal().refusesAppends()).get().asString().contains("closed");
  }

  @Test
  void readiness_saysWhyGrantsAreRefused_whenTheKeyOutlivesAnInMemoryJournal() {
    GrantFixture f = new GrantFixture();
    try (Steward s = f.steward(new InMemoryJournal()).build()) {
      Readiness r = s.readiness();
      assertThat(r.ready()).isTrue();
      assertThat(r.grants().honoured()).isFalse();
      assertThat(r.grants().refusedBecause()).get().asString().contains("not durable");
    }
  }
}
