/** the XML reader of the importers (worker-safe, no DOM) */
export * from './xml';
export { XmlSyntaxError } from '../assets/errors';
