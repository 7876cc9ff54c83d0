package org.meshjava.steward;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.ForwardingJournal;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;

/**
 * Delegates to a journal and watches what its reads deliver: how many records, and a weak reference
 * to each, so a test can tell whether anything still holds them. Test support only.
 */
final class RecordingJournal extends ForwardingJournal {
  final List<WeakReference<JournalRecord>> delivered = new ArrayList<>();

  RecordingJournal(Journal inner) {
    super(inner);
  }

  @Override
  public void read(JournalPosition from, Map<ContentId, GrantChain> chains, RecordSink sink)
      throws JournalException {
    delegate()
        .read(
            from,
            chains,
            r -> {
              synchronized (delivered) {
                delivered.add(new WeakReference<>(r));
              }
              sink.accept(r);
            });
  }

  /** How many records reads delivered. */
  int deliveredCount() {
    synchronized (delivered) {
      return delivered.size();
    }
  }

  /** How many delivered records are still reachable. */
  long stillReachable() {
    synchronized (delivered) {
      return delivered.stream().filter(w -> w.get() != null).count();
    }
  }
}
