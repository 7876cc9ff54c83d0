package org.meshjava.journal;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;

/**
 * A journal that forwards every method to another: the base of a decorator, which overrides only
 * what it changes (timing each write, reporting itself durable, describing itself). {@link #append}
 * is left to its default, so it goes through this decorator's {@link #enqueue}. As thread-safe as
 * the journal it forwards to and its own overrides.
 */
public abstract class ForwardingJournal implements Journal {
  private final Journal delegate;

  /** A decorator of {@code delegate}. */
  protected ForwardingJournal(Journal delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The journal forwarded to. */
  protected final Journal delegate() {
    return delegate;
  }

  @Override
  public List<JournalRecord> recovered() {
    return delegate.recovered();
  }

  @Override
  public void read(JournalPosition from, Map<ContentId, GrantChain> chains, RecordSink sink)
      throws JournalException {
    delegate.read(from, chains, sink);
  }

  @Override
  public void checkHeldLinksBefore(long count) throws JournalException {
    delegate.checkHeldLinksBefore(count);
  }

  @Override
  public void warnFirstSegmentsMissingBefore(long count) throws JournalException {
    delegate.warnFirstSegmentsMissingBefore(count);
  }

  @Override
  public JournalPosition position() {
    return delegate.position();
  }

  @Override
  public Pending enqueue(JournalEntry entry) throws JournalException {
    return delegate.enqueue(entry);
  }

  @Override
  public boolean durable() {
    return delegate.durable();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public Optional<String> refusesAppends() {
    return delegate.refusesAppends();
  }

  @Override
  public boolean locked() {
    return delegate.locked();
  }

  @Override
  public Journal storage() {
    return delegate.storage();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
