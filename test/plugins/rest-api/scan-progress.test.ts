/** Scan progress on long scans: it moves with probes decided, and estimates the time left (given clock, no waiting). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScanProgressTracker } from '../../../plugins/rest-api/scans/scan-progress.js';

test('percent follows probes decided while addresses still wait out silence', () => {
  const tracker = new ScanProgressTracker(1000, 2000, 0);
  // 1,000 probes decided (every address's first port timed out), no address finished yet.
  tracker.batchProgress(0, { probed: 0, probesDecided: 1000 });
  const snap = tracker.snapshot(10_000);
  assert.equal(snap.scanned, 0);
  assert.equal(snap.probesDecided, 1000);
  assert.equal(snap.probesTotal, 2000);
  assert.equal(snap.percent, 50, 'half the probes decided is half the scan');
  tracker.batchDone(0, { probed: 1000, probesDecided: 2000 });
  assert.equal(tracker.snapshot(20_000).percent, 99, '100 % is the end event\'s');
});

test('the time left is the probing still to do at the rate so far, or the device reads waiting, whichever is longer', () => {
  const tracker = new ScanProgressTracker(10_000, 20_000, 0);
  assert.equal(tracker.snapshot(1000).etaSeconds, null, 'unknown before any probe is decided');
  tracker.batchProgress(0, { probed: 2000, probesDecided: 4000 });
  // 4,000 probes in 2 s: 16,000 left at 2,000/s.
  assert.equal(tracker.snapshot(2000).etaSeconds, 8);
  for (let i = 0; i < 100; i++) tracker.deviceOffered(2000);
  for (let i = 0; i < 10; i++) tracker.deviceSettled();
  tracker.batchProgress(0, { probed: 3000, probesDecided: 6000 });
  // Probing: 14,000 left at 2,000/s is 7 s; reads: 10 in 1 s since the first offer, 90 waiting at 10/s is 9 s.
  const snap = tracker.snapshot(3000);
  assert.equal(snap.etaSeconds, 9);
  tracker.batchDone(0, { probed: 10_000, probesDecided: 20_000 });
  for (let i = 0; i < 90; i++) tracker.deviceSettled();
  assert.equal(tracker.snapshot(12_000).etaSeconds, 0);
});
