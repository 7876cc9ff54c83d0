package org.meshjava.energy;

import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/** One domain read from an IOReport session. */
final class IoReportChannel implements EnergyChannel {
  private final IoReportSession session;
  private final EnergyDomain domain;
  private boolean released;

  IoReportChannel(IoReportSession session, EnergyDomain domain) {
    this.session = Objects.requireNonNull(session, "session");
    this.domain = Objects.requireNonNull(domain, "domain");
    session.retain();
  }

  @Override
  public String name() {
    return "ioreport:" + domain;
  }

  @Override
  public EnergyDomain domain() {
    return domain;
  }

  @Override
  public long readTotalUj() throws CounterException {
    if (released) {
      throw new CounterException(CounterIssue.READ_FAILED, name() + " was released");
    }
    return session.totalUj(domain.kind());
  }

  @Override
  public void release() {
    if (!released) {
      released = true;
      session.release();
    }
  }
}
