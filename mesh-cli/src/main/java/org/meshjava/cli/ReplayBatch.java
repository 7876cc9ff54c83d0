package org.meshjava.cli;

import java.util.ArrayList;
import java.util.List;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.ReplayState;

/**
 * Records on their way into a streamed replay, applied a batch at a time so that their
 * presentations' signatures are checked in parallel ({@link ReplayState#applyAll}), in bounded
 * memory however long the journal is. Each record goes on to {@code replayed} once its batch has
 * been applied, so a refusal by the replay is found before a later record's by {@code replayed}, as
 * when the whole journal is replayed first. Not thread-safe: one scan feeds it.
 */
final class ReplayBatch {
  /** The records applied at once. */
  static final int SIZE = 4096;

  private final ReplayState state;
  private final Journal.RecordSink replayed;
  private final List<JournalRecord> pending = new ArrayList<>(SIZE);

  ReplayBatch(ReplayState state, Journal.RecordSink replayed) {
    this.state = state;
    this.replayed = replayed;
  }

  /** Queues {@code r}, applying the batch when it is full. */
  void add(JournalRecord r) throws JournalException {
    pending.add(r);
    if (pending.size() == SIZE) {
      flush();
    }
  }

  /** Applies what is queued and returns the state, now at the last record added. */
  ReplayState flush() throws JournalException {
    state.applyAll(pending);
    for (JournalRecord r : pending) {
      replayed.accept(r);
    }
    pending.clear();
    return state;
  }
}
