import type { ServerResponse } from 'node:http';

/** How a fake platform breaks a file download: the connection closed before any answer, or in the middle of the body. */
export type FileBreak = 'before-answer' | 'mid-body';

/** Drops a download's connection as `how` says (a network failure, as the adapter would meet it). */
export const breakDownload = (res: ServerResponse, data: Buffer, how: FileBreak): void => {
  if (how === 'mid-body') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(data.length + 1024) });
    res.write(data.subarray(0, 1));
  }
  res.socket?.destroy();
};
