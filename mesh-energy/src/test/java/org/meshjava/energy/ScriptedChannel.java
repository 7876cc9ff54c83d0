package org.meshjava.energy;

import java.util.function.LongUnaryOperator;
import org.meshjava.core.EnergyDomain;

/**
 * A channel whose total the test drives: by default it advances {@code ujPerRead} on every read;
 * {@link #freeze()} stops it, {@link #failWith} makes reads fail, {@link #add} adds energy directly
 * (work done between reads).
 */
final class ScriptedChannel implements EnergyChannel {
  private final EnergyDomain domain;
  private long total;
  private long ujPerRead;
  private int every = 1;
  private long reads;
  private CounterException failure;
  private LongUnaryOperator onRead = t -> t;
  boolean released;

  ScriptedChannel(EnergyDomain domain, long ujPerRead) {
    this.domain = domain;
    this.ujPerRead = ujPerRead;
  }

  @Override
  public String name() {
    return "scripted:" + domain;
  }

  @Override
  public EnergyDomain domain() {
    return domain;
  }

  @Override
  public synchronized long readTotalUj() throws CounterException {
    if (failure != null) {
      throw failure;
    }
    reads++;
    if (every > 0 && reads % every == 0) {
      total += ujPerRead * every;
    }
    total = onRead.applyAsLong(total);
    return total;
  }

  synchronized void freeze() {
    every = 0;
  }

  synchronized void advanceEvery(int n, long ujPerRead) {
    this.every = n;
    this.ujPerRead = ujPerRead;
    this.reads = 0;
  }

  synchronized void add(long uj) {
    total += uj;
  }

  synchronized void failWith(CounterIssue issue) {
    failure = issue == null ? null : new CounterException(issue, "scripted failure");
  }

  synchronized long reads() {
    return reads;
  }

  @Override
  public void release() {
    released = true;
  }
}
