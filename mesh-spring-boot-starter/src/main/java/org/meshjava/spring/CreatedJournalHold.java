package org.meshjava.spring;

import org.jspecify.annotations.Nullable;
import org.meshjava.journal.CreatedJournal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/**
 * The journal file the starter created in this start, kept (and said to be new) only once the
 * application has started, as {@code mesh serve} keeps its own only once it listens: until then a
 * failed start (a setting refused when the steward is built, another bean failing, a web server's
 * port in use) closes the steward, and the journal's close removes the file and the snapshot folder
 * made for it ({@link CreatedJournal}). Left behind, the next start found a journal it took for an
 * earlier start's, and never said that the path named a new one.
 *
 * <p>The application has started when its context has refreshed: every singleton is built and a web
 * server, if any, listens. A steward built after that (a lazy bean) has started once it is built.
 * Thread-safe.
 */
final class CreatedJournalHold implements ApplicationListener<ContextRefreshedEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(CreatedJournalHold.class);

  private final ApplicationContext context;
  private @Nullable CreatedJournal created;
  private boolean built;
  private boolean refreshed;

  /** A hold for the steward of {@code context}; events of other contexts are not its start. */
  CreatedJournalHold(ApplicationContext context) {
    this.context = context;
  }

  /** Holds {@code journal}, which this start created, until the start has succeeded. */
  synchronized void hold(CreatedJournal journal) {
    created = journal;
  }

  /** The steward over the held journal, if any, is built: kept at once if the context is up. */
  synchronized void built() {
    built = true;
    keepIfStarted();
  }

  @Override
  public synchronized void onApplicationEvent(ContextRefreshedEvent event) {
    // A child context's refresh reaches its parent's listeners too; only this one's counts.
    if (event.getApplicationContext() != context) {
      return;
    }
    refreshed = true;
    keepIfStarted();
  }

  private void keepIfStarted() {
    CreatedJournal c = created;
    if (c == null || !built || !refreshed) {
      return;
    }
    created = null;
    c.keep();
    // Said once, so that a journal path that names no journal yet (a typo) is seen at the first
    // start, not after grants were spent again from zero; and only now, since a start that fails
    // removes the file.
    LOG.info("starting a new journal at {}", c.path().toAbsolutePath());
  }
}
