package org.meshjava.energy;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.meshjava.core.internal.JvmFailure;

/**
 * Apple's private IOReport API bound through FFM: subscribes to the "Energy Model" channel group
 * and takes sample deltas. <strong>Never run on Apple hardware in this project's
 * development</strong>: it is compiled everywhere, constructed only on macOS (see {@link
 * IoReportDiscovery}), and its sample-to-reading logic lives in {@link IoReportEnergyModel}, which
 * is tested on recorded samples. The signatures follow the community's reverse-engineered headers
 * (as used by tools such as macmon); IOReport has no public documentation.
 *
 * <p>Sample deltas are walked through the {@code IOReportChannels} array of the delta dictionary
 * with CoreFoundation calls, not {@code IOReportIterate}, which takes an Objective-C block that FFM
 * cannot build. Not thread-safe; {@link IoReportSession} serialises it.
 */
final class IoReportNative implements IoReportSampler {
  static final String IOREPORT = "/usr/lib/libIOReport.dylib";
  static final String CORE_FOUNDATION =
      "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation";
  private static final int UTF8 = 0x0800_0100; // kCFStringEncodingUTF8

  private final Arena arena = Arena.ofShared();
  private final MethodHandle cfStringCreate;
  private final MethodHandle cfStringGet;
  private final MethodHandle cfRelease;
  private final MethodHandle cfDictGet;
  private final MethodHandle cfDictCount;
  private final MethodHandle cfDictMutableCopy;
  private final MethodHandle cfArrayCount;
  private final MethodHandle cfArrayGet;
  private final MethodHandle copyChannelsInGroup;
  private final MethodHandle createSubscription;
  private final MethodHandle createSamples;
  private final MethodHandle createSamplesDelta;
  private final MethodHandle channelGroup;
  private final MethodHandle channelName;
  private final MethodHandle channelUnit;
  private final MethodHandle integerValue;

  /** Every CoreFoundation object a Create or Copy call gave us; released in reverse order. */
  private final List<MemorySegment> owned = new ArrayList<>();

  private final MemorySegment channelsKey;
  private final MemorySegment subscription;
  private final MemorySegment subscribed;
  private final MemorySegment textBuffer;
  private MemorySegment previous = MemorySegment.NULL;
  private boolean released;

  /**
   * Binds the two libraries by name. Since macOS 11 system libraries live in the dyld shared cache,
   * not as files, so they are handed to the dynamic loader as names ({@link NativeSymbols#load}).
   */
  private IoReportNative(String ioReportLibrary, String coreFoundationLibrary)
      throws CounterException {
    try {
      NativeSymbols cf = NativeSymbols.load(coreFoundationLibrary, arena);
      NativeSymbols ior = NativeSymbols.load(ioReportLibrary, arena);
      cfStringCreate =
          cf.function("CFStringCreateWithCString", ADDRESS, ADDRESS, ADDRESS, JAVA_INT);
      cfStringGet =
          cf.function("CFStringGetCString", JAVA_BYTE, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT);
      cfRelease = cf.procedure("CFRelease", ADDRESS);
      cfDictGet = cf.function("CFDictionaryGetValue", ADDRESS, ADDRESS, ADDRESS);
      cfDictCount = cf.function("CFDictionaryGetCount", JAVA_LONG, ADDRESS);
      cfDictMutableCopy =
          cf.function("CFDictionaryCreateMutableCopy", ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
      cfArrayCount = cf.function("CFArrayGetCount", JAVA_LONG, ADDRESS);
      cfArrayGet = cf.function("CFArrayGetValueAtIndex", ADDRESS, ADDRESS, JAVA_LONG);
      copyChannelsInGroup =
          ior.function(
              "IOReportCopyChannelsInGroup",
              ADDRESS,
              ADDRESS,
              ADDRESS,
              JAVA_LONG,
              JAVA_LONG,
              JAVA_LONG);
      createSubscription =
          ior.function(
              "IOReportCreateSubscription", ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
      createSamples = ior.function("IOReportCreateSamples", ADDRESS, ADDRESS, ADDRESS, ADDRESS);
      createSamplesDelta =
          ior.function("IOReportCreateSamplesDelta", ADDRESS, ADDRESS, ADDRESS, ADDRESS);
      channelGroup = ior.function("IOReportChannelGetGroup", ADDRESS, ADDRESS);
      channelName = ior.function("IOReportChannelGetChannelName", ADDRESS, ADDRESS);
      channelUnit = ior.function("IOReportChannelGetUnitLabel", ADDRESS, ADDRESS);
      integerValue = ior.function("IOReportSimpleGetIntegerValue", JAVA_LONG, ADDRESS, JAVA_INT);
    } catch (IllegalCallerException | IllegalArgumentException | NoSuchElementException e) {
      arena.close();
      throw CounterException.ofBinding(e, "cannot bind IOReport/CoreFoundation");
    }
    textBuffer = arena.allocate(256);
    try {
      channelsKey = own(cfString("IOReportChannels"));
      MemorySegment group = own(cfString(IoReportEnergyModel.GROUP));
      MemorySegment channels =
          (MemorySegment) copyChannelsInGroup.invokeExact(group, MemorySegment.NULL, 0L, 0L, 0L);
      if (channels.equals(MemorySegment.NULL)) {
        throw new CounterException(
            CounterIssue.NOT_PRESENT, "IOReport has no '" + IoReportEnergyModel.GROUP + "' group");
      }
      own(channels);
      long size = (long) cfDictCount.invokeExact(channels);
      MemorySegment mutable =
          own((MemorySegment) cfDictMutableCopy.invokeExact(MemorySegment.NULL, size, channels));
      MemorySegment out = arena.allocate(ADDRESS);
      subscription =
          (MemorySegment)
              createSubscription.invokeExact(
                  MemorySegment.NULL, mutable, out, 0L, MemorySegment.NULL);
      if (subscription.equals(MemorySegment.NULL)) {
        throw new CounterException(
            CounterIssue.NATIVE_ERROR, "IOReportCreateSubscription returned NULL");
      }
      own(subscription);
      subscribed = own(out.get(ADDRESS, 0));
    } catch (CounterException e) {
      closeAll();
      throw e;
    } catch (Throwable t) {
      closeAll();
      throw failed(CounterIssue.NATIVE_ERROR, "IOReport setup failed: ", t);
    }
  }

  /** Records an object we must release; NULL is not an object. */
  private MemorySegment own(MemorySegment object) {
    if (!object.equals(MemorySegment.NULL)) {
      owned.add(object);
    }
    return object;
  }

  /**
   * What {@code t}, thrown across a downcall, is reported as: {@code issue} with {@code words}, but
   * the JVM failing passes as it is ({@link JvmFailure}), never a failed read or set-up that blames
   * IOReport.
   */
  static CounterException failed(CounterIssue issue, String words, Throwable t) {
    JvmFailure.passIfFailing(t);
    return new CounterException(issue, words + t, t);
  }

  /** Releases every owned object, then the arena, whatever the releases throw. */
  private void closeAll() {
    try {
      releaseAll(cfRelease, owned);
    } finally {
      arena.close();
    }
  }

  /**
   * Releases every object in {@code owned} through {@code cfRelease}, newest first, and empties it.
   * Throws nothing but the JVM failing ({@link JvmFailure}), and that only once every object has
   * been released: one failed release must not keep the others. Package-private for the tests: no
   * fake library can make a downcall throw.
   */
  static void releaseAll(MethodHandle cfRelease, List<MemorySegment> owned) {
    Throwable failing = null;
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        cfRelease.invokeExact(owned.get(i));
      } catch (Throwable t) {
        if (failing == null && JvmFailure.isFailing(t)) {
          failing = t;
        }
      }
    }
    owned.clear();
    if (failing != null) {
      JvmFailure.passIfFailing(failing);
    }
  }

  /** Subscribes to the Energy Model group. Call only on macOS. */
  static IoReportNative subscribe() throws CounterException {
    return subscribe(IOREPORT, CORE_FOUNDATION);
  }

  /** Subscribes through the named libraries (the tests bind a fake of both). */
  static IoReportNative subscribe(String ioReportLibrary, String coreFoundationLibrary)
      throws CounterException {
    return new IoReportNative(ioReportLibrary, coreFoundationLibrary);
  }

  @Override
  public List<IoReportEntry> sampleDelta() throws CounterException {
    if (released) {
      throw new CounterException(CounterIssue.READ_FAILED, "IOReport subscription released");
    }
    try {
      MemorySegment current =
          (MemorySegment) createSamples.invokeExact(subscription, subscribed, MemorySegment.NULL);
      if (current.equals(MemorySegment.NULL)) {
        throw new CounterException(CounterIssue.READ_FAILED, "IOReportCreateSamples returned NULL");
      }
      MemorySegment before = previous;
      previous = current; // owned from here on: released by the next sample or by release()
      if (before.equals(MemorySegment.NULL)) {
        return List.of();
      }
      MemorySegment delta;
      try {
        delta = (MemorySegment) createSamplesDelta.invokeExact(before, current, MemorySegment.NULL);
      } finally {
        cfRelease.invokeExact(before);
      }
      if (delta.equals(MemorySegment.NULL)) {
        throw new CounterException(
            CounterIssue.READ_FAILED, "IOReportCreateSamplesDelta returned NULL");
      }
      try {
        return entries(delta);
      } finally {
        cfRelease.invokeExact(delta);
      }
    } catch (CounterException e) {
      throw e;
    } catch (Throwable t) {
      throw failed(CounterIssue.READ_FAILED, "IOReport sample failed: ", t);
    }
  }

  private List<IoReportEntry> entries(MemorySegment delta) throws Throwable {
    MemorySegment array = (MemorySegment) cfDictGet.invokeExact(delta, channelsKey);
    if (array.equals(MemorySegment.NULL)) {
      return List.of();
    }
    long count = (long) cfArrayCount.invokeExact(array);
    List<IoReportEntry> out = new ArrayList<>((int) Math.min(count, 1024));
    for (long i = 0; i < count; i++) {
      MemorySegment item = (MemorySegment) cfArrayGet.invokeExact(array, i);
      String group = javaString((MemorySegment) channelGroup.invokeExact(item));
      if (!group.equals(IoReportEnergyModel.GROUP)) {
        continue;
      }
      String name = javaString((MemorySegment) channelName.invokeExact(item));
      String unit = javaString((MemorySegment) channelUnit.invokeExact(item));
      long value = (long) integerValue.invokeExact(item, 0);
      out.add(new IoReportEntry(group, name, unit, value));
    }
    return out;
  }

  private MemorySegment cfString(String text) throws Throwable {
    MemorySegment c = arena.allocateFrom(text);
    return (MemorySegment) cfStringCreate.invokeExact(MemorySegment.NULL, c, UTF8);
  }

  private String javaString(MemorySegment cfString) throws Throwable {
    if (cfString.equals(MemorySegment.NULL)) {
      return "";
    }
    byte ok = (byte) cfStringGet.invokeExact(cfString, textBuffer, textBuffer.byteSize(), UTF8);
    return ok == 0 ? "" : textBuffer.getString(0);
  }

  @Override
  public void release() {
    if (released) {
      return;
    }
    released = true;
    try {
      if (!previous.equals(MemorySegment.NULL)) {
        cfRelease.invokeExact(previous);
        previous = MemorySegment.NULL;
      }
    } catch (Throwable t) {
      // releasing is best effort; the process is the owner of last resort. The JVM failing passes,
      // once the owned objects and the arena are released all the same.
      JvmFailure.passIfFailing(t);
    } finally {
      closeAll();
    }
  }
}
