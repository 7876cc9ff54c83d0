package org.meshjava.energy;

import java.util.Objects;
import org.meshjava.core.EnergyDomain;

/**
 * A channel that reads through a {@link SharedNative}: it holds the resource from construction
 * until its own {@link #release()}, after which reads fail rather than touch a resource that may be
 * gone. Not thread-safe, like every channel.
 */
abstract class SharedNativeChannel extends NamedChannel {
  private final SharedNative resource;
  private boolean released;

  /** Retains {@code resource}; construct last, once nothing else can fail. */
  SharedNativeChannel(String name, EnergyDomain domain, SharedNative resource) {
    super(name, domain);
    this.resource = Objects.requireNonNull(resource, "resource");
    resource.retain();
  }

  @Override
  public final long readTotalUj() throws CounterException {
    if (released) {
      throw new CounterException(CounterIssue.READ_FAILED, name() + " was released");
    }
    return readRetained();
  }

  /** Whether {@link #release()} was called: the resource may be gone. */
  final boolean isReleased() {
    return released;
  }

  /** Reads the counter while the resource is still retained. */
  abstract long readRetained() throws CounterException;

  @Override
  public final void release() {
    if (!released) {
      released = true;
      resource.release();
    }
  }
}
