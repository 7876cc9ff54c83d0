package org.meshjava.energy;

import org.meshjava.core.EnergyDomain;

/** One domain read from an IOReport session. */
final class IoReportChannel extends SharedNativeChannel {
  private final IoReportSession session;

  IoReportChannel(IoReportSession session, EnergyDomain domain) {
    super("ioreport:" + domain, domain, session);
    this.session = session;
  }

  @Override
  long readRetained() throws CounterException {
    return session.totalUj(domain().kind());
  }

  /**
   * Moves only once every rail counted towards this domain has moved: no die hides a frozen one.
   */
  @Override
  public long livenessMark(long total) {
    return session.mark(domain().kind());
  }
}
