/**
 * schema.org types the node may name in schema.jsonld and as entity types. An entity type that
 * is not on this list is projected as its closest listed ancestor, else Thing, so every @type a
 * consumer sees is a real schema.org type.
 */
export const SCHEMA_ORG_TYPES: ReadonlySet<string> = new Set([
  'Thing', 'CreativeWork', 'Article', 'BlogPosting', 'NewsArticle', 'TechArticle', 'Report', 'ScholarlyArticle', 'WebPage', 'AboutPage',
  'ContactPage', 'FAQPage', 'QAPage', 'CollectionPage', 'ItemPage', 'ProfilePage', 'SearchResultsPage', 'WebSite', 'Blog', 'Book', 'Course',
  'HowTo', 'Recipe', 'Review', 'Rating', 'AggregateRating', 'Comment', 'Question', 'Answer', 'MediaObject', 'ImageObject', 'VideoObject',
  'AudioObject', 'SoftwareApplication', 'SoftwareSourceCode', 'Dataset', 'Product', 'ProductGroup', 'ProductModel', 'IndividualProduct',
  'Offer', 'AggregateOffer', 'Brand', 'Service', 'Organization', 'Corporation', 'LocalBusiness', 'Store', 'Restaurant', 'CafeOrCoffeeShop',
  'Bakery', 'BarOrPub', 'FoodEstablishment', 'HealthAndBeautyBusiness', 'HairSalon', 'DaySpa', 'ProfessionalService', 'LegalService',
  'MedicalBusiness', 'Dentist', 'AutomotiveBusiness', 'AutoRepair', 'LodgingBusiness', 'Hotel', 'SportsActivityLocation', 'ExerciseGym',
  'HomeAndConstructionBusiness', 'Plumber', 'Electrician', 'EducationalOrganization', 'NGO', 'Person', 'Place', 'PostalAddress',
  'GeoCoordinates', 'OpeningHoursSpecification', 'Event', 'BusinessEvent', 'MusicEvent', 'EducationEvent', 'SocialEvent', 'Festival',
  'SportsEvent', 'Course', 'JobPosting', 'DefinedTerm', 'DefinedTermSet', 'PropertyValue', 'QuantitativeValue', 'MonetaryAmount',
  'PriceSpecification', 'UnitPriceSpecification', 'Menu', 'MenuItem', 'Trip', 'Vehicle', 'Car', 'Action', 'ItemList', 'ListItem',
  'BreadcrumbList', 'Occupation', 'Language', 'Country', 'City', 'AdministrativeArea', 'Audience', 'ContactPoint', 'Thing',
]);

/** The schema.org @type for an entity type: itself when listed, else Thing. */
export function schemaOrgType(type: string): string {
  return SCHEMA_ORG_TYPES.has(type) ? type : 'Thing';
}
