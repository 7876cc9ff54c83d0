package org.meshjava.energy;

import org.meshjava.core.EnergyDomain;

/** One domain read from an IOReport session. */
final class IoReportChannel extends SharedNativeChannel {
  private final IoReportSession session;

  IoReportChannel(IoReportSession session, EnergyDomain domain) {
    super("ioreport:" + domain, domain, session);
    this.session = session;
  }

  /** The machine's one SoC: every meter's IOReport channel on a domain reads the same rails. */
  @Override
  public Object hardware() {
    return name();
  }

  @Override
  long readRetained() throws CounterException {
    return session.totalUj(domain().kind());
  }

  /**
   * Every Apple rail, the GPU's too, is held to the package's bound: the GPU of an Apple SoC is a
   * rail of the same chip (tens of watts), not a board of its own, and the 2 kW a discrete board
   * may draw would let a garbled GPU delta of twice any rail's draw through as energy.
   */
  @Override
  public PowerBound powerBound() {
    return PowerBound.PACKAGE;
  }

  /**
   * Moves only once every rail counted towards this domain has moved: no die hides a frozen one.
   */
  @Override
  public long livenessMark(long total) {
    return session.mark(domain().kind());
  }
}
