export const FILE_UPLOAD_EXPIRY_QUEUE = 'file-upload-expiry';
/** The job scheduler's id: upserting it again on every worker start is a no-op. */
export const FILE_UPLOAD_EXPIRY_SCHEDULER = 'delete-expired-file-uploads';
export const FILE_UPLOAD_EXPIRY_EVERY_MS = 60 * 60 * 1000;
