/**
 * Type families for entity identity (docs/contract.md#entity-identity): a MusicEvent and an
 * Event with one url are one entity, so the stable id is made from the family, not the subtype
 * (identityType; src/ingest/graph's entityIdOf). The entity keeps its most specific type
 * (mostSpecificType). The lists are schema.org's subtypes of each root. Creative works are not
 * a family here: every item type but product, event, location and profile is one, and keying
 * them by their root would change the id of every page already published.
 */
export type TypeFamily = 'Event' | 'Place' | 'Organization' | 'Person' | 'Product';

export const FAMILY_ROOTS: readonly TypeFamily[] = ['Event', 'Place', 'Organization', 'Person', 'Product'];

const EVENT_TYPES = new Set([
  'Event', 'BusinessEvent', 'ChildrensEvent', 'ComedyEvent', 'CourseInstance', 'DanceEvent', 'DeliveryEvent', 'EducationEvent',
  'EventSeries', 'ExhibitionEvent', 'Festival', 'FoodEvent', 'Hackathon', 'LiteraryEvent', 'MusicEvent', 'PublicationEvent',
  'BroadcastEvent', 'OnDemandEvent', 'SaleEvent', 'ScreeningEvent', 'SocialEvent', 'SportsEvent', 'TheaterEvent', 'VisualArtsEvent',
  'UserInteraction', 'UserBlocks', 'UserCheckins', 'UserComments', 'UserDownloads', 'UserLikes', 'UserPageVisits', 'UserPlays',
  'UserPlusOnes', 'UserTweets',
]);

/** Place and its subtypes, LocalBusiness's included (a business with an address is a place first). */
const PLACE_TYPES = new Set([
  'Place', 'Accommodation', 'Apartment', 'CampingPitch', 'House', 'SingleFamilyResidence', 'Room', 'HotelRoom', 'MeetingRoom', 'Suite',
  'AdministrativeArea', 'City', 'Country', 'SchoolDistrict', 'State', 'CivicStructure', 'Airport', 'Aquarium', 'Beach', 'BoatTerminal',
  'Bridge', 'BusStation', 'BusStop', 'Campground', 'Cemetery', 'Crematorium', 'EventVenue', 'FireStation', 'GovernmentBuilding',
  'CityHall', 'Courthouse', 'DefenceEstablishment', 'Embassy', 'LegislativeBuilding', 'Hospital', 'MovieTheater', 'Museum', 'MusicVenue',
  'Park', 'ParkingFacility', 'PerformingArtsTheater', 'PlaceOfWorship', 'BuddhistTemple', 'Church', 'CatholicChurch', 'HinduTemple',
  'Mosque', 'Synagogue', 'Playground', 'PoliceStation', 'PublicToilet', 'RVPark', 'StadiumOrArena', 'SubwayStation', 'TaxiStand',
  'TrainStation', 'Zoo', 'Landform', 'BodyOfWater', 'Canal', 'LakeBodyOfWater', 'OceanBodyOfWater', 'Pond', 'Reservoir',
  'RiverBodyOfWater', 'SeaBodyOfWater', 'Waterfall', 'Continent', 'Mountain', 'Volcano', 'LandmarksOrHistoricalBuildings', 'Residence',
  'ApartmentComplex', 'GatedResidenceCommunity', 'TouristAttraction', 'TouristDestination',
  'LocalBusiness', 'AnimalShelter', 'ArchiveOrganization', 'AutomotiveBusiness', 'AutoBodyShop', 'AutoDealer', 'AutoPartsStore',
  'AutoRental', 'AutoRepair', 'AutoWash', 'GasStation', 'MotorcycleDealer', 'MotorcycleRepair', 'ChildCare', 'Dentist',
  'DryCleaningOrLaundry', 'EmergencyService', 'EmploymentAgency', 'EntertainmentBusiness', 'AdultEntertainment', 'AmusementPark',
  'ArtGallery', 'Casino', 'ComedyClub', 'NightClub', 'FinancialService', 'AccountingService', 'AutomatedTeller', 'BankOrCreditUnion',
  'InsuranceAgency', 'FoodEstablishment', 'Bakery', 'BarOrPub', 'Brewery', 'CafeOrCoffeeShop', 'Distillery', 'FastFoodRestaurant',
  'IceCreamShop', 'Restaurant', 'Winery', 'GovernmentOffice', 'PostOffice', 'HealthAndBeautyBusiness', 'BeautySalon', 'DaySpa',
  'HairSalon', 'HealthClub', 'NailSalon', 'TattooParlor', 'HomeAndConstructionBusiness', 'Electrician', 'GeneralContractor',
  'HVACBusiness', 'HousePainter', 'Locksmith', 'MovingCompany', 'Plumber', 'RoofingContractor', 'InternetCafe', 'LegalService',
  'Attorney', 'Notary', 'Library', 'LodgingBusiness', 'BedAndBreakfast', 'Hostel', 'Hotel', 'Motel', 'Resort', 'SkiResort',
  'VacationRental', 'MedicalBusiness', 'CommunityHealth', 'Dermatology', 'DietNutrition', 'Emergency', 'Geriatric', 'Gynecologic',
  'MedicalClinic', 'CovidTestingFacility', 'Midwifery', 'Nursing', 'Obstetric', 'Oncologic', 'Optician', 'Optometric',
  'Otolaryngologic', 'Pediatric', 'Pharmacy', 'Physician', 'IndividualPhysician', 'PhysiciansOffice', 'Physiotherapy', 'PlasticSurgery',
  'Podiatric', 'PrimaryCare', 'Psychiatric', 'PublicHealth', 'ProfessionalService', 'RadioStation', 'RealEstateAgent', 'RecyclingCenter',
  'SelfStorage', 'ShoppingCenter', 'SportsActivityLocation', 'BowlingAlley', 'ExerciseGym', 'GolfCourse', 'PublicSwimmingPool',
  'SportsClub', 'TennisComplex', 'Store', 'BikeStore', 'BookStore', 'ClothingStore', 'ComputerStore', 'ConvenienceStore',
  'DepartmentStore', 'ElectronicsStore', 'Florist', 'FurnitureStore', 'GardenStore', 'GroceryStore', 'HardwareStore', 'HobbyShop',
  'HomeGoodsStore', 'JewelryStore', 'LiquorStore', 'MensClothingStore', 'MobilePhoneStore', 'MovieRentalStore', 'MusicStore',
  'OfficeEquipmentStore', 'OutletStore', 'PawnShop', 'PetStore', 'ShoeStore', 'SportingGoodsStore', 'TireShop', 'ToyStore',
  'WholesaleStore', 'TelevisionStation', 'TouristInformationCenter', 'TravelAgency', 'Cafe', 'Bar',
]);

/** Organization's subtypes that are not places (LocalBusiness and its subtypes are in PLACE_TYPES). */
const ORGANIZATION_TYPES = new Set([
  'Organization', 'Airline', 'Consortium', 'Cooperative', 'Corporation', 'EducationalOrganization', 'CollegeOrUniversity',
  'ElementarySchool', 'HighSchool', 'MiddleSchool', 'Preschool', 'School', 'FundingAgency', 'FundingScheme', 'GovernmentOrganization',
  'LibrarySystem', 'MedicalOrganization', 'DiagnosticLab', 'VeterinaryCare', 'NGO', 'NewsMediaOrganization', 'OnlineBusiness',
  'OnlineStore', 'PerformingGroup', 'DanceGroup', 'MusicGroup', 'TheaterGroup', 'PoliticalParty', 'Project', 'ResearchProject',
  'ResearchOrganization', 'SearchRescueOrganization', 'SportsOrganization', 'SportsTeam', 'WorkersUnion',
]);

const PERSON_TYPES = new Set(['Person', 'Patient']);

const PRODUCT_TYPES = new Set([
  'Product', 'DietarySupplement', 'Drug', 'IndividualProduct', 'ProductCollection', 'ProductGroup', 'ProductModel', 'SomeProducts',
  'Vehicle', 'BusOrCoach', 'Car', 'Motorcycle', 'MotorizedBicycle',
]);

/** Local names the lists miss (extensions, misspelt subtypes) that still read as one of them. */
const EVENT_NAME = /Event$/;
const PLACE_NAME = /(Store|Shop|Restaurant|Hotel|Venue|Park|Station)$/;

/** The family of a schema.org type name, or null for a type outside the five families (creative works, brands, ...). */
export function typeFamily(type: string): TypeFamily | null {
  if (EVENT_TYPES.has(type) || EVENT_NAME.test(type)) return 'Event';
  if (PLACE_TYPES.has(type) || PLACE_NAME.test(type)) return 'Place';
  if (ORGANIZATION_TYPES.has(type)) return 'Organization';
  if (PERSON_TYPES.has(type)) return 'Person';
  if (PRODUCT_TYPES.has(type)) return 'Product';
  return null;
}

/** identityType by type name: it is asked for every fact, relationship and sort comparison. */
const IDENTITY_TYPES = new Map<string, string>();

/** The type part of an entity's stable id: its family when it has one, else the type itself. */
export function identityType(type: string): string {
  let identity = IDENTITY_TYPES.get(type);
  if (identity === undefined) {
    identity = typeFamily(type) ?? type;
    // Type names are schema.org terms, a few hundred at most; the bound keeps odd input from growing it.
    if (IDENTITY_TYPES.size < 10_000) IDENTITY_TYPES.set(type, identity);
  }
  return identity;
}

function isFamilyRoot(type: string): boolean {
  return (FAMILY_ROOTS as readonly string[]).includes(type);
}

/**
 * The type an entity keeps when several statements of one family describe it, given in the
 * order of preference (best first): the first that is not a family root (MusicEvent over
 * Event), else the first.
 */
export function mostSpecificType(types: readonly string[]): string {
  return types.find((t) => !isFamilyRoot(t)) ?? types[0]!;
}
